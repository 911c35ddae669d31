/// Queries a person types into a plant search box: full names, common names, partial words, typos,
/// cultivars, families and genera. Fixed, so runs can be compared.
enum CatalogQueries {
    static let all: [String] = exact + common + partial + typos + cultivars + groups

    static let exact = [
        "Monstera deliciosa", "Epipremnum aureum", "Ficus elastica", "Ficus lyrata", "Zamioculcas zamiifolia",
        "Dracaena trifasciata", "Chlorophytum comosum", "Spathiphyllum wallisii", "Aloe vera", "Pilea peperomioides",
        "Calathea", "Maranta leuconeura", "Philodendron hederaceum", "Hoya carnosa", "Tradescantia zebrina",
        "Aglaonema commutatum", "Dieffenbachia seguine", "Schefflera arboricola", "Crassula ovata", "Echeveria elegans",
        "Haworthiopsis attenuata", "Nephrolepis exaltata", "Asplenium nidus", "Adiantum raddianum", "Platycerium bifurcatum",
        "Phalaenopsis amabilis", "Tillandsia ionantha", "Guzmania lingulata", "Howea forsteriana", "Chamaedorea elegans",
        "Dypsis lutescens", "Rhapis excelsa", "Ocimum basilicum", "Mentha spicata", "Petroselinum crispum",
        "Salvia rosmarinus", "Begonia rex", "Anthurium andraeanum", "Cyclamen persicum", "Kalanchoe blossfeldiana",
        "Senecio rowleyanus", "Ceropegia woodii", "Scindapsus pictus", "Syngonium podophyllum", "Hedera helix",
        "Peperomia obtusifolia", "Fittonia albivenis", "Alocasia amazonica", "Strelitzia reginae", "Yucca elephantipes",
    ]

    static let common = [
        "snake plant", "swiss cheese plant", "pothos", "rubber plant", "fiddle leaf fig", "zz plant", "spider plant",
        "peace lily", "aloe", "chinese money plant", "prayer plant", "heartleaf philodendron", "wax plant", "inch plant",
        "chinese evergreen", "dumb cane", "umbrella tree", "jade plant", "zebra plant", "boston fern",
        "bird's nest fern", "maidenhair fern", "staghorn fern", "moth orchid", "air plant", "kentia palm",
        "parlor palm", "areca palm", "lady palm", "basil", "mint", "parsley", "rosemary", "thyme", "chives",
        "string of pearls", "string of hearts", "satin pothos", "arrowhead plant", "english ivy", "baby rubber plant",
        "nerve plant", "elephant ear", "bird of paradise", "christmas cactus", "flamingo flower", "african violet",
        "mother in law's tongue", "cast iron plant", "ponytail palm", "money tree", "polka dot plant", "croton",
        "lucky bamboo", "dragon tree", "corn plant", "painted lady", "burro's tail", "panda plant", "living stones",
    ]

    static let partial = [
        "philo", "monst", "epiprem", "calat", "alocas", "anthur", "begon", "peper", "tillan", "echev", "hawor",
        "cras", "sanse", "drac", "spath", "aglao", "dieffen", "schef", "syngo", "scinda", "tradesc", "hoy",
        "phalaen", "orchi", "fern", "palm", "cact", "succ", "ivy", "lily", "fig", "string of", "snake", "money",
        "pea", "del", "chamae", "nephro", "aspl", "adiant",
    ]

    static let typos = [
        "monstra delicosa", "sansiveria", "sansevera", "philodendrun", "pothoss", "calathia", "alocasia polli",
        "anthurim", "begonnia", "peperomea", "tilandsia", "echevaria", "haworthia fasciata", "crasula ovata",
        "dracena marginata", "spathiphylum", "aglonema", "difenbachia", "scheflera", "syngonum", "scindapsis",
        "tradescancia", "hoya carnossa", "phalenopsis", "zamioculcus", "chlorophytom", "maranta leuconuera",
        "pilea peperomiodes", "ficus elastika", "ficus lirata", "nephrolepsis", "aspleneum", "adiantium",
        "platycerum", "guzmannia", "chamaedorea elgans", "rhapsis", "ocimum basilikum", "menta", "rosmarinus",
        "fitonia", "strelizia", "yuca", "ceropegia wodii", "senecio rowleyana",
    ]

    static let cultivars = [
        "philo brasil", "pink princess", "Philodendron 'Birkin'", "thai constellation", "marble queen",
        "neon pothos", "golden pothos", "manjula", "n joy", "laurentii", "moonshine", "black cardinal",
        "white wizard", "prince of orange", "silver sword", "Monstera deliciosa 'Albo Variegata'", "burle marx",
        "Epipremnum aureum 'Global Green'", "rubber plant tineke", "ruby", "variegata", "aurea", "compacta",
        "Ficus elastica 'Burgundy'", "'Brasil'", "calathea medallion", "rattlesnake plant", "silver satin",
        "Monstera deliciosa 'Unknown Cultivar'", "hoya krimson queen",
    ]

    static let groups = [
        "Araceae", "Cactaceae", "Orchidaceae", "Bromeliaceae", "Crassulaceae", "Asparagaceae", "Marantaceae",
        "Arecaceae", "Lamiaceae", "Gesneriaceae", "Piperaceae", "Moraceae", "Polypodiaceae", "Apocynaceae",
        "Begoniaceae", "Philodendron", "Anthurium", "Hoya", "Tillandsia", "Echeveria", "Haworthia", "Aloe",
        "Ficus", "Dracaena", "Peperomia", "Begonia", "Calathea", "Goeppertia", "Mammillaria", "Opuntia",
    ]
}

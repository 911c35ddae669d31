import PlantGuideCore

/// A small line drawing for each catalog category, inline so no page fetches anything for it. Decorative: the
/// category's name always stands next to it, so screen readers skip the drawing.
///
/// Drawn by hand on a 24 × 24 grid with the stroke in the text colour, so an icon follows its chip or link
/// (white on the selected chip, green elsewhere) and stays sharp at any size.
enum CategoryIcon {
    /// The icon as an `<svg>` element, sized by the `.icon` class.
    static func svg(_ category: PlantCategory) -> HTML {
        drawn[category] ?? drawing(category)
    }

    /// Every icon, drawn once: a Browse page shows one per plant.
    private static let drawn: [PlantCategory: HTML] = Dictionary(
        uniqueKeysWithValues: PlantCategory.allCases.map { ($0, drawing($0)) }
    )

    private static func drawing(_ category: PlantCategory) -> HTML {
        """
        <svg class="icon" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false" fill="none" \
        stroke="currentColor" stroke-width="1.75" stroke-linecap="round" stroke-linejoin="round">\
        <path d="\(path(category))"/></svg>
        """
    }

    /// The drawing: one path per icon, so every icon has the same weight and style.
    static func path(_ category: PlantCategory) -> String {
        switch category {
        case .airPlant:
            // Thin curling leaves from one base, no pot.
            "M12 20c0-5 0-10-1-15M12 20c1-4 3-8 6-11M12 20c-1-4-4-7-7-9M12 20c2-2 5-3 8-3M12 20c-2-2-5-3-8-2"
        case .bromeliad:
            // A vase of stiff leaves with a flower spike in the middle.
            "M12 21c-4-1-7-5-8-10 3 1 6 4 8 10zM12 21c4-1 7-5 8-10-3 1-6 4-8 10zM12 21V8M10 10l2-4 2 4"
        case .cactus:
            // A column with two arms, in the ground.
            "M10 21V6a2 2 0 0 1 4 0v15M10 14H8a2 2 0 0 1-2-2V9M14 12h2a2 2 0 0 0 2-2V8M6 21h12"
        case .fern:
            // A curving frond with leaflets on both sides.
            "M7 21c0-7 3-13 11-17M8 15l-4-1M8 15l3 2M9 11l-4-2M9 11l3 1M12 8l-3-3M12 8l3 0M15 6l-1-3M15 6l3 1"
        case .floweringHouseplant:
            // A tulip on its stem, with a leaf.
            "M8 4l2 2 2-3 2 3 2-2v4a4 4 0 0 1-8 0zM12 12v9M12 18c-2-3-5-3-6-2 1 2 3 3 6 2z"
        case .herb:
            // A sprig with paired leaves.
            "M12 21V5M12 16c-3 0-5-2-5-5 3 0 5 2 5 5zM12 16c3 0 5-2 5-5-3 0-5 2-5 5zM12 9c-2 0-3-1-3-3 2 0 3 1 3 3zM12 9c2 0 3-1 3-3-2 0-3 1-3 3z"
        case .orchid:
            // A flower seen face on: a petal above, two at the sides, the lip below.
            "M12 11c-2-2-2-6 0-8 2 2 2 6 0 8zM12 11c-2-3-6-3-8-1 2 2 6 2 8 1zM12 11c2-3 6-3 8-1-2 2-6 2-8 1zM12 11c-2 1-2 4 0 5 2-1 2-4 0-5zM12 16v5"
        case .palm:
            // A trunk with fronds arching from its top.
            "M12 21c0-4 0-8-1-11M11 10c-2-3-5-4-8-3M11 10c2-3 5-4 8-3M11 10c-3 0-5 2-6 5M11 10c3 0 5 2 6 5"
        case .succulent:
            // A rosette of thick leaves in a pot.
            "M12 15c-1-3-1-6 0-9 1 3 1 6 0 9zM12 15c-3-1-5-3-6-6 3 0 5 3 6 6zM12 15c3-1 5-3 6-6-3 0-5 3-6 6zM7 15h10l-1 6H8z"
        case .trailingClimbing:
            // A pot on a shelf with a stem trailing down from it, leaves along it.
            "M3 8h12M5 3h8l-1 5H6zM9 8c0 4 7 4 7 8 0 2-2 4-4 5M11 11c-2 1-4 0-4-2 2-1 4 0 4 2zM15 14c2-1 4 0 4 2-2 1-4 0-4-2zM13 20c-2 0-3-1-3-3 2 0 3 1 3 3z"
        case .tropicalFoliage:
            // A broad leaf with its midrib and veins.
            "M5 19C5 10 10 4 20 4c0 10-5 15-15 15zM5 19L16 8M9 15h4M12 12V8M13 11h3"
        }
    }
}

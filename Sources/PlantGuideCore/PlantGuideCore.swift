// PlantGuideCore: filled in by the foundation work.

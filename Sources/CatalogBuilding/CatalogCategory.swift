public import PlantGuideCore

/// The eleven categories a catalog entry can belong to: the app's own ``PlantCategory``, whose raw
/// values are the exact strings used in the data files and in the bundled resource.
public typealias CatalogCategory = PlantCategory

// CatalogBuilding: filled in by the foundation work.

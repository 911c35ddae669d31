print("plantguide-catalog-build")

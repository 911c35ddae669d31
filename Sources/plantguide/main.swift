print("plantguide")

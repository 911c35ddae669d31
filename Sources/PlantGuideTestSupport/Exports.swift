// The Pl@ntNet stand-in lives in its own product module; tests reach it through the test support as before.
@_exported import PlantNetStub

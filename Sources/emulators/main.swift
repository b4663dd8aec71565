print("emulators: not yet built")

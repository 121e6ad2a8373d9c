print("livelog")

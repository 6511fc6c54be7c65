"""The shipped AlphaZero network for 5x5 Little-Go (data files: model.pt, model.npz, model.json)."""

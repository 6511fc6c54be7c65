"""The shipped AlphaZero network for Tic-Tac-Toe (data files: model.pt, model.npz, model.json)."""

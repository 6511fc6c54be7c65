"""The trained models shipped with the package (data files; see README.md here)."""

"""The books of proved moves the package ships (data only: ``tictacgo.solver.book`` reads them)."""

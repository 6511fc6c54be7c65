"""The books of proved moves the package ships (data only: ``tictacgo.proof.book`` reads them)."""

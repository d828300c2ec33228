"""regrapht: serial code to fast, verified CUDA with small local models (ReGraphT)."""

__version__ = "0.1.0"

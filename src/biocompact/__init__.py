"""biocompact: build, distil and benchmark compact biomedical transformers."""

__version__ = "0.1.0"

"""Datasets and loaders for host training."""

from .dataset import ArrayDataset, Dataset, Subset, random_split
from .loader import DataLoader
from .sources import load_csv, load_digits, load_idx, load_image_folder

__all__ = ["ArrayDataset", "DataLoader", "Dataset", "Subset", "load_csv", "load_digits",
           "load_idx", "load_image_folder", "random_split"]

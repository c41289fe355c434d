"""Errors that carry a message fit to show a user as one line."""


class LoadertuneError(Exception):
    """Bad input or an unusable environment; the message says what and how to fix it."""


class ConfigError(LoadertuneError):
    """A DataLoader setting that is invalid or inconsistent."""


class DatasetSpecError(LoadertuneError):
    """A DATASET argument that cannot be imported or is not a dataset."""

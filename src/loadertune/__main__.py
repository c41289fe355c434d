"""`python -m loadertune`."""

from loadertune.cli import main

if __name__ == "__main__":
    main()

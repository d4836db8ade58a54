"""The log's pages, for every API that lists entries of it (the play's, the clock's, the
logbook's)."""

from core.pagination import StrictPagination


class ResolutionPagination(StrictPagination):
    """The log's pages: 50 unless ``page_size`` says up to 200."""

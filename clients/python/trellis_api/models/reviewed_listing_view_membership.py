from enum import StrEnum


class ReviewedListingViewMembership(StrEnum):
    APPROVAL = "APPROVAL"
    CLOSED = "CLOSED"
    OPEN = "OPEN"

    def __str__(self) -> str:
        return str(self.value)

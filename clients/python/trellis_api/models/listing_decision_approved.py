from enum import StrEnum


class ListingDecisionApproved(StrEnum):
    NO = "NO"
    YES = "YES"

    def __str__(self) -> str:
        return str(self.value)

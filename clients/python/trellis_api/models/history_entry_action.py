from enum import StrEnum


class HistoryEntryAction(StrEnum):
    CREATED = "CREATED"
    SUBMITTED = "SUBMITTED"
    UPDATED = "UPDATED"

    def __str__(self) -> str:
        return str(self.value)

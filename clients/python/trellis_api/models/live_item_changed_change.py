from enum import StrEnum


class LiveItemChangedChange(StrEnum):
    MOVED = "MOVED"
    STARTED = "STARTED"
    UPDATED = "UPDATED"

    def __str__(self) -> str:
        return str(self.value)

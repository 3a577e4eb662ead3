from enum import StrEnum


class InviteResultState(StrEnum):
    ACCEPTED = "ACCEPTED"
    PENDING = "PENDING"

    def __str__(self) -> str:
        return str(self.value)

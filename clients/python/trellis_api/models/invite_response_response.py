from enum import StrEnum


class InviteResponseResponse(StrEnum):
    ACCEPT = "ACCEPT"
    DECLINE = "DECLINE"

    def __str__(self) -> str:
        return str(self.value)

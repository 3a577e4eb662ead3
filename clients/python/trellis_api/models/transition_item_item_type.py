from enum import StrEnum


class TransitionItemItemType(StrEnum):
    FORM = "FORM"

    def __str__(self) -> str:
        return str(self.value)

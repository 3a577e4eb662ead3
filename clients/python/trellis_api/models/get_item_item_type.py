from enum import StrEnum


class GetItemItemType(StrEnum):
    FORM = "FORM"

    def __str__(self) -> str:
        return str(self.value)

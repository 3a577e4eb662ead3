from enum import StrEnum


class UpdateItemItemType(StrEnum):
    FORM = "FORM"

    def __str__(self) -> str:
        return str(self.value)

from enum import StrEnum


class ListFormsStatesItem(StrEnum):
    DRAFT = "DRAFT"
    SUBMITTED = "SUBMITTED"

    def __str__(self) -> str:
        return str(self.value)

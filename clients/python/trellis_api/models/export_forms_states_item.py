from enum import StrEnum


class ExportFormsStatesItem(StrEnum):
    DRAFT = "DRAFT"
    SUBMITTED = "SUBMITTED"

    def __str__(self) -> str:
        return str(self.value)

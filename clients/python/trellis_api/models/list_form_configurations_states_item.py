from enum import StrEnum


class ListFormConfigurationsStatesItem(StrEnum):
    ACTIVE = "ACTIVE"
    ARCHIVED = "ARCHIVED"

    def __str__(self) -> str:
        return str(self.value)

from enum import StrEnum


class InstanceViewState(StrEnum):
    DRAFT = "DRAFT"
    SUBMITTED = "SUBMITTED"

    def __str__(self) -> str:
        return str(self.value)

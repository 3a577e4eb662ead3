from enum import StrEnum


class FormPayloadStateType1(StrEnum):
    DRAFT = "DRAFT"
    SUBMITTED = "SUBMITTED"

    def __str__(self) -> str:
        return str(self.value)

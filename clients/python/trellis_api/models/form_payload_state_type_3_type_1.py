from enum import StrEnum


class FormPayloadStateType3Type1(StrEnum):
    DRAFT = "DRAFT"
    SUBMITTED = "SUBMITTED"

    def __str__(self) -> str:
        return str(self.value)

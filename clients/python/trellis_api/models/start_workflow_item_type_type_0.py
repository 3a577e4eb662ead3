from enum import StrEnum


class StartWorkflowItemTypeType0(StrEnum):
    FORM = "FORM"

    def __str__(self) -> str:
        return str(self.value)

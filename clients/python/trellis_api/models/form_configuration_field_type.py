from enum import StrEnum


class FormConfigurationFieldType(StrEnum):
    DATE = "date"
    DROPDOWN = "dropdown"
    FILE = "file"
    TEXT = "text"
    TEXTAREA = "textarea"

    def __str__(self) -> str:
        return str(self.value)

from enum import StrEnum


class UploadStatusTusResumable(StrEnum):
    VALUE_0 = "1.0.0"

    def __str__(self) -> str:
        return str(self.value)

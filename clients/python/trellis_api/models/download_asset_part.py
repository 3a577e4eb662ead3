from enum import StrEnum


class DownloadAssetPart(StrEnum):
    BASE = "base"

    def __str__(self) -> str:
        return str(self.value)

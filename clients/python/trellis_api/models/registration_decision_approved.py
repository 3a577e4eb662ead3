from enum import StrEnum


class RegistrationDecisionApproved(StrEnum):
    NO = "NO"
    YES = "YES"

    def __str__(self) -> str:
        return str(self.value)

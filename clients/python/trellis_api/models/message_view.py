from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.correspondent_view import CorrespondentView


T = TypeVar("T", bound="MessageView")


@_attrs_define
class MessageView:
    """A message.

    Attributes:
        body (str):
        created_at (datetime.datetime):
        from_ (CorrespondentView): A participant of a thread or a message. The platform's notices come from `system`,
            which has no
            account: `{userId: null, handle: "system", displayName: "Trellis", avatar: null}`.
        message_id (str):
        read_at (datetime.datetime | None): When the recipient first fetched it; `null` until then.
        subject (str):
        thread_id (str):
        to (CorrespondentView): A participant of a thread or a message. The platform's notices come from `system`, which
            has no
            account: `{userId: null, handle: "system", displayName: "Trellis", avatar: null}`.
    """

    body: str
    created_at: datetime.datetime
    from_: CorrespondentView
    message_id: str
    read_at: datetime.datetime | None
    subject: str
    thread_id: str
    to: CorrespondentView
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        body = self.body

        created_at = self.created_at.isoformat()

        from_ = self.from_.to_dict()

        message_id = self.message_id

        read_at: None | str
        if isinstance(self.read_at, datetime.datetime):
            read_at = self.read_at.isoformat()
        else:
            read_at = self.read_at

        subject = self.subject

        thread_id = self.thread_id

        to = self.to.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "body": body,
                "createdAt": created_at,
                "from": from_,
                "messageId": message_id,
                "readAt": read_at,
                "subject": subject,
                "threadId": thread_id,
                "to": to,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.correspondent_view import CorrespondentView

        d = dict(src_dict)
        body = d.pop("body")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        from_ = CorrespondentView.from_dict(d.pop("from"))

        message_id = d.pop("messageId")

        def _parse_read_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                read_at_type_0 = datetime.datetime.fromisoformat(data)

                return read_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        read_at = _parse_read_at(d.pop("readAt"))

        subject = d.pop("subject")

        thread_id = d.pop("threadId")

        to = CorrespondentView.from_dict(d.pop("to"))

        message_view = cls(
            body=body,
            created_at=created_at,
            from_=from_,
            message_id=message_id,
            read_at=read_at,
            subject=subject,
            thread_id=thread_id,
            to=to,
        )

        message_view.additional_properties = d
        return message_view

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties

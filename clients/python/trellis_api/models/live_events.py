from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.live_asset_changed import LiveAssetChanged
    from ..models.live_comment_created import LiveCommentCreated
    from ..models.live_invite_created import LiveInviteCreated
    from ..models.live_item_changed import LiveItemChanged
    from ..models.live_message_created import LiveMessageCreated
    from ..models.live_registration_changed import LiveRegistrationChanged
    from ..models.live_unread_changed import LiveUnreadChanged


T = TypeVar("T", bound="LiveEvents")


@_attrs_define
class LiveEvents:
    """The stream's events by their `event:` name, each with the schema of its `data:` (`reset`
    carries `{}`). Not a body the server sends whole: a map for clients to type each event by name.

        Attributes:
            asset_changed (LiveAssetChanged): `asset.changed`, to those who may read the asset.
            comment_created (LiveCommentCreated): `comment.created`, to those who may read the space or channel.
            invite_created (LiveInviteCreated): `invite.created`, to the invitee.
            item_changed (LiveItemChanged): `item.changed`, to the item's creator and holders of a view of its workbasket
                (the one it left
                too, on a move).
            message_created (LiveMessageCreated): `message.created`, to the recipient.
            registration_changed (LiveRegistrationChanged): `registration.changed`, to the registrant and the space's owner.
            unread_changed (LiveUnreadChanged): `unread.changed`, to the user whose unread count changed.
    """

    asset_changed: LiveAssetChanged
    comment_created: LiveCommentCreated
    invite_created: LiveInviteCreated
    item_changed: LiveItemChanged
    message_created: LiveMessageCreated
    registration_changed: LiveRegistrationChanged
    unread_changed: LiveUnreadChanged
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        asset_changed = self.asset_changed.to_dict()

        comment_created = self.comment_created.to_dict()

        invite_created = self.invite_created.to_dict()

        item_changed = self.item_changed.to_dict()

        message_created = self.message_created.to_dict()

        registration_changed = self.registration_changed.to_dict()

        unread_changed = self.unread_changed.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "asset.changed": asset_changed,
                "comment.created": comment_created,
                "invite.created": invite_created,
                "item.changed": item_changed,
                "message.created": message_created,
                "registration.changed": registration_changed,
                "unread.changed": unread_changed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.live_asset_changed import LiveAssetChanged
        from ..models.live_comment_created import LiveCommentCreated
        from ..models.live_invite_created import LiveInviteCreated
        from ..models.live_item_changed import LiveItemChanged
        from ..models.live_message_created import LiveMessageCreated
        from ..models.live_registration_changed import LiveRegistrationChanged
        from ..models.live_unread_changed import LiveUnreadChanged

        d = dict(src_dict)
        asset_changed = LiveAssetChanged.from_dict(d.pop("asset.changed"))

        comment_created = LiveCommentCreated.from_dict(d.pop("comment.created"))

        invite_created = LiveInviteCreated.from_dict(d.pop("invite.created"))

        item_changed = LiveItemChanged.from_dict(d.pop("item.changed"))

        message_created = LiveMessageCreated.from_dict(d.pop("message.created"))

        registration_changed = LiveRegistrationChanged.from_dict(
            d.pop("registration.changed")
        )

        unread_changed = LiveUnreadChanged.from_dict(d.pop("unread.changed"))

        live_events = cls(
            asset_changed=asset_changed,
            comment_created=comment_created,
            invite_created=invite_created,
            item_changed=item_changed,
            message_created=message_created,
            registration_changed=registration_changed,
            unread_changed=unread_changed,
        )

        live_events.additional_properties = d
        return live_events

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

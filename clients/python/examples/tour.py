"""A tour of every family of routes through the installed `trellis-client` package: auth, users,
forms, workflows, spaces, modules, assets, resumable uploads (tus), channels, messages, marketplace,
the operator's routes, live events and both exports. Two users sign up (the PIN read from the outbox
folder of a server without SMTP); each part prints one line, and the first failure ends the tour with
its part named and a non-zero exit.

    TRELLIS_BASE=http://127.0.0.1:8080 TRELLIS_DATA=data \
        TRELLIS_GRANT_OPERATOR="trellis admin grant-operator --config trellis.toml" python tour.py

TRELLIS_DATA is the server's data directory: its `license.key` and `outbox/`. TRELLIS_GRANT_OPERATOR is
the server's command that makes a handle a platform operator, short of the handle: with it, Bob is made
one and reviews Ann's listing (the operator part is skipped without it). Every name gets a random
suffix, so the tour can run again against the same server. The documents it sends and its checks are in
tour_support.py, beside it.
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
import time
from collections.abc import Iterator
from uuid import UUID

from trellis_api.api.admin import decide_listing, list_listings_for_review, list_module_metrics, list_refused_modules
from trellis_api.api.assets import create_asset, get_asset
from trellis_api.api.auth import get_session
from trellis_api.api.channels import (
    create_channel,
    invite_to_channel,
    list_channel_comments,
    list_channel_members,
    list_pending_invites,
    post_channel_comment,
    replace_channel_spaces,
    respond_to_invite,
)
from trellis_api.api.forms import (
    create_form,
    create_form_configuration,
    get_form,
    get_form_configuration,
    get_form_history,
    update_form,
)
from trellis_api.api.marketplace import (
    get_listing,
    get_marketplace_settings,
    list_trending_listings,
    replace_marketplace_settings,
)
from trellis_api.api.media import download_attachment
from trellis_api.api.messages import count_unread_messages, get_message, list_messages, list_threads, send_message
from trellis_api.api.modules import get_space_modules, replace_space_modules
from trellis_api.api.spaces import (
    create_space,
    get_space_settings,
    list_space_comments,
    post_space_comment,
    update_space_settings,
)
from trellis_api.api.users import get_me, search_users, update_me
from trellis_api.api.workflows import (
    create_workflow_configuration,
    get_item,
    get_item_history,
    get_workflow_configuration,
    get_workflow_permissions,
    list_view_items,
    replace_workflow_permissions,
    start_workflow,
    transition_item,
)
from trellis_api.models import (
    ChannelSpaceSet,
    ConfigurationView,
    ConfigurationWrapper,
    ConnectedModules,
    GeneralSettings,
    GrantView,
    InstanceView,
    InviteRequest,
    InviteResponse,
    InviteResponseResponse,
    ItemDetail,
    ListingDecision,
    ListingDecisionApproved,
    ListingView,
    ListListingsForReviewStatesItem,
    LiveMessageCreated,
    MarketplaceSettingsChange,
    MarketplaceSettingsChangeMembership,
    NewAsset,
    NewChannel,
    NewComment,
    NewMessage,
    NewSpace,
    PayloadWrapper,
    Permissions,
    Profile,
    SpaceView,
    StartWorkflow,
    TransitionRequest,
    UpdateProfile,
    WorkflowView,
    WorkflowWrapper,
)
from trellis_client import AttachmentFile, ResumableUpload, Trellis, TrellisError, UploadFile

# The tour's own module, beside it (in the project it is copied to as well).
from tour_support import (
    ALL_VIEW,
    AMOUNT,
    APPROVED,
    BASE,
    DATA,
    GRANT_OPERATOR,
    PASSWORD,
    RECEIPT,
    SUBMITTED,
    SUFFIX,
    deadline,
    expect,
    form_configuration,
    grant_operator,
    picture,
    refusal,
    sign_up,
    workflow_configuration,
)

part = "setup (TRELLIS_BASE, TRELLIS_DATA)"


@contextlib.contextmanager
def tour_part(name: str) -> Iterator[list[str]]:
    """Names the part running (a failure names it) and prints one line for it with its time."""
    global part
    notes: list[str] = []
    part, started = name, time.monotonic()
    yield notes
    print(f"ok  {name:<12} {time.monotonic() - started:5.2f}s  {'; '.join(notes)}", flush=True)


def tour(ann: Trellis, bob: Trellis, visitor: Trellis) -> None:
    """Ann and Bob sign up; the visitor never does (the public marketplace reads)."""
    with tour_part("auth") as notes:
        ann_handle = sign_up(ann, "ann", "Ann")
        bob_handle = sign_up(bob, "bob", "Bob")
        ann.token = None
        session = ann.login(ann_handle, PASSWORD)
        info = ann.call(get_session)
        expect(info.handle == ann_handle and info.user_id == session.user.user_id, f"session of {info.handle}")
        notes.append(f"signed up {ann_handle} and {bob_handle}, logged in, session until {info.expires_at:%H:%M}")

    with tour_part("users") as notes:
        read = ann.call_detailed(get_me)
        me: Profile = read.parsed
        expect(read.etag is not None, "GET /v0/users/me carries no ETag")
        changed = ann.call_detailed(update_me, body=UpdateProfile(display_name="Ann T."), if_match=read.etag)
        expect(changed.parsed.display_name == "Ann T.", f"display name {changed.parsed.display_name}")
        stale = refusal(lambda: ann.call(update_me, body=UpdateProfile(display_name="Ann Stale"), if_match=read.etag))
        expect(stale.status == 412, f"a PATCH with a stale If-Match answered {stale}")
        found = [user.handle for user in ann.paginate(search_users, q=bob_handle)]
        expect(bob_handle in found, f"search for {bob_handle} found {found}")
        notes.append(f"{me.handle}: PATCH with If-Match 200, with the stale tag {stale.status} {stale.code}")

    with tour_part("forms") as notes:
        config: ConfigurationView = ann.call(
            create_form_configuration, body=ConfigurationWrapper.from_dict(form_configuration())
        )
        read_config: ConfigurationView = ann.call(get_form_configuration, configuration_id=config.id)
        expect(read_config.revision == config.revision, "the configuration read back differs")
        payload = {"configurationId": config.id, "language": "en", "state": "DRAFT", "fields": {AMOUNT: "42.50"}}
        claim = ann.call(create_form, body=PayloadWrapper.from_dict({"payload": payload})).form_id
        receipt = picture(8, 8)
        uploaded = ann.upload_attachments(
            claim, [AttachmentFile(receipt, "receipt.png", "image/png", field_id=RECEIPT)]
        )
        part_key = uploaded.attachments[0].part_key
        download = ann.call_detailed(download_attachment, claim, part_key)
        expect(download.parsed.payload.read() == receipt, "the attachment downloaded differs from the upload")
        expect(download.etag == f'"{hashlib.sha256(receipt).hexdigest()}"', f"attachment ETag {download.etag}")
        current = ann.call_detailed(get_form, form_id=claim)
        change = {"payload": {"fields": {AMOUNT: "43.00"}, "state": "SUBMITTED"}}
        updated = ann.call(update_form, claim, body=PayloadWrapper.from_dict(change), if_match=current.etag)
        expect(updated.state == "SUBMITTED", f"state {updated.state} after the update")
        history = list(ann.paginate(get_form_history, claim))
        expect(len(history) >= 2, f"history has {len(history)} entries")
        notes.append(
            f"instance {claim[:8]}, attachment up and down ({len(receipt)} bytes), {len(history)} history entries"
        )

    with tour_part("workflows") as notes:
        flow: WorkflowView = ann.call(
            create_workflow_configuration, body=WorkflowWrapper.from_dict(workflow_configuration(config.id))
        )
        ann.call(get_workflow_configuration, configuration_id=flow.id)
        ann.call(start_workflow, body=StartWorkflow(workflow_configuration_id=flow.id, item_id=claim))
        item_read = ann.call_detailed(get_item, claim, workflow_configuration_id=flow.id)
        item: ItemDetail = item_read.parsed
        expect(item.workbasket_id == SUBMITTED and bool(item.transitions), f"new item in {item.workbasket_id}")
        move = TransitionRequest(transition_id=UUID(item.transitions[0].transition_id))
        moved = ann.call(transition_item, claim, body=move, workflow_configuration_id=flow.id, if_match=item_read.etag)
        expect(moved.workbasket_id == APPROVED, f"moved to {moved.workbasket_id}")
        steps = [entry.action for entry in ann.paginate(get_item_history, claim, workflow_configuration_id=flow.id)]
        expect(len(steps) == 2, f"the item's history holds {steps}")
        permissions = ann.call_detailed(get_workflow_permissions, configuration_id=flow.id)
        grants = Permissions(grants=[GrantView(handle=bob_handle, slots=[1])])
        ann.call(replace_workflow_permissions, flow.id, body=grants, if_match=permissions.etag)
        seen = [i.item_id for i in bob.paginate(list_view_items, ALL_VIEW, workflow_configuration_id=flow.id)]
        expect(claim in seen, f"bob's view shows {seen}, not the claim")
        notes.append(f"item {' then '.join(steps)} (If-Match), bob granted slot 1 sees {len(seen)} item(s)")

    with tour_part("spaces") as notes:
        space: SpaceView = ann.call(
            create_space, body=NewSpace(name=f"tour-{SUFFIX}", display_name="Tour", summary="Where the tour goes")
        )
        space_id = space.space_id
        ann.call(post_space_comment, space_id, body=NewComment(body="First!"))
        comments = list(ann.paginate(list_space_comments, space_id))
        expect([c.body for c in comments] == ["First!"], f"space comments {[c.body for c in comments]}")
        settings = ann.call_detailed(get_space_settings, space_id)
        renamed = ann.call(
            update_space_settings, space_id, body=GeneralSettings(display_name="Tour space"), if_match=settings.etag
        )
        expect(renamed.display_name == "Tour space", f"display name {renamed.display_name}")
        notes.append(f"space {space.name}, a comment, settings changed with If-Match")

    with tour_part("modules") as notes:
        connected = ann.call_detailed(get_space_modules, space_id)
        modules = ConnectedModules.from_dict({"modules": [{"moduleId": "tags", "config": {}}]})
        ann.call(replace_space_modules, space_id, body=modules, if_match=connected.etag)
        ann.call_module(space_id, "tags", "POST", f"items/{claim}/tags", {"tags": ["travel"]})
        tags = ann.call_module(space_id, "tags", "GET", f"items/{claim}/tags")
        expect("travel" in str(tags), f"the item's tags {tags}")
        notes.append(f"tags connected, item tags {tags}")

    with tour_part("assets") as notes:
        logo = picture(16, 16)
        announced = NewAsset(content_type="image/png", filename="logo.png", title="Logo")
        asset_id = ann.call(create_asset, space_id, body=announced).new_published_asset_id
        stored = ann.upload_asset(space_id, asset_id, UploadFile(logo, "logo.png", "image/png"))
        expect(stored.bytes_ == len(logo), f"stored {stored.bytes_} bytes of {len(logo)}")
        asset = ann.call(get_asset, space_id, asset_id)
        expect(asset.state == "AWAITING_APPROVAL", f"asset state {asset.state}")
        notes.append(f"announced and uploaded ({len(logo)} bytes), {asset.state}")

    with tour_part("tus") as notes:
        photo, chunk = picture(48, 48), 2048
        started = ann.create_upload(len(photo), filename="photo.png", content_type="image/png")
        ann.append_to_upload(started, photo[:chunk])  # then the connection "drops": a new run resumes it
        offsets: list[int] = [started.offset]
        finished = ann.upload_resumable(
            photo, upload=started.upload_id, chunk_size=chunk, on_progress=lambda u: offsets.append(u.offset)
        )
        expect(finished.finished and len(offsets) >= 2, f"{len(offsets)} PATCHes, offsets {offsets}")
        photo_id = ann.call(
            create_asset, space_id, body=NewAsset(content_type="image/png", filename="photo.png", title="Photo")
        ).new_published_asset_id
        used = ann.upload_asset(space_id, photo_id, finished)
        expect(used.bytes_ == len(photo), f"the asset took {used.bytes_} bytes of {len(photo)}")
        gone = refusal(lambda: ann.upload_offset(finished))
        expect(gone.status == 404, f"HEAD of a used upload answered {gone}")
        scan = picture(8, 8)
        small = ann.upload_resumable(scan, filename="scan.png", content_type="image/png")
        attached = ann.attach_uploads(claim, [(RECEIPT, small.upload_id)])
        expect(attached.attachments[0].filename == "scan.png", f"attached {attached.to_dict()}")
        notes.append(f"{len(photo)} bytes in {len(offsets)} PATCHes (resumed at {offsets[0]}) became an asset")
        notes.append("another became an attachment")

    with tour_part("channels") as notes:
        channel = ann.call(create_channel, body=NewChannel(name=f"tour {SUFFIX}", description="The tour's channel"))
        ann.call(replace_channel_spaces, channel.channel_id, body=ChannelSpaceSet(space_ids=[space_id]))
        ann.call(post_channel_comment, channel.channel_id, body=NewComment(body="Welcome"))
        ann.call(invite_to_channel, channel.channel_id, body=InviteRequest(users=[bob_handle]))
        invites = [i for i in bob.paginate(list_pending_invites) if i.channel_id == channel.channel_id]
        expect(len(invites) == 1, f"bob has {len(invites)} invites to the channel")
        bob.call(
            respond_to_invite,
            body=InviteResponse(invite_id=invites[0].invite_id, response=InviteResponseResponse.ACCEPT),
        )
        bob.call(post_channel_comment, channel.channel_id, body=NewComment(body="Thanks"))
        members = [m.handle for m in ann.paginate(list_channel_members, channel.channel_id)]
        expect(bob_handle in members, f"members {members}")
        said = [c.body for c in ann.paginate(list_channel_comments, channel.channel_id)]
        expect(sorted(said) == ["Thanks", "Welcome"], f"channel comments {said}")
        notes.append(f"channel with the space, bob invited and accepted, {len(said)} comments")

    with tour_part("live+msgs") as notes:
        with ann.events() as events:
            sent = bob.call(send_message, body=NewMessage(to=ann_handle, subject="Lunch?", body="At noon?"))
            with deadline(30, "message.created on ann's stream"):
                heard = next(event for event in events if event.name == "message.created")
        expect(isinstance(heard.data, LiveMessageCreated), f"message.created data {heard.data}")
        expect(heard.data.message_id == sent.message_id, f"heard {heard.data.to_dict()} for {sent.to_dict()}")
        expect(ann.call(count_unread_messages).unread == 1, "ann's unread count is not 1")
        threads = [t for t in ann.paginate(list_threads) if t.thread_id == sent.thread_id]
        expect(len(threads) == 1 and threads[0].unread == 1, "the thread is not listed with one unread")
        ann.call(get_message, sent.thread_id, sent.message_id)  # fetching it reads it
        expect(ann.call(count_unread_messages).unread == 0, "ann's unread count after reading is not 0")
        ann.call(send_message, body=NewMessage(thread_id=sent.thread_id, body="Yes"))
        replies = [m.body for m in bob.paginate(list_messages, sent.thread_id)]
        expect("Yes" in replies, f"bob's thread holds {replies}")
        notes.append(f"message.created heard (event {heard.id}), unread 1 then 0, reply seen")

    with tour_part("marketplace") as notes:
        current_market = ann.call_detailed(get_marketplace_settings, space_id)
        listing = MarketplaceSettingsChange(
            title="Tour space",
            summary="A space the tour made",
            categories=["travel"],
            membership=MarketplaceSettingsChangeMembership.OPEN,
            submit=True,
        )
        market = ann.call(replace_marketplace_settings, space_id, body=listing, if_match=current_market.etag)
        expect(market.membership == "OPEN" and market.title == "Tour space", f"settings {market.to_dict()}")
        expect(market.state == "SUBMITTED" and not market.listed, f"submitted: {market.state}, listed {market.listed}")
        unlisted = refusal(lambda: visitor.call(get_listing, space_id))
        expect(unlisted.status == 404, f"the public read of a listing not approved answered {unlisted}")
        trending = list(ann.paginate(list_trending_listings))
        notes.append(f"settings {market.state} {market.membership} (not public yet), {len(trending)} trending listings")

    with tour_part("operator") as notes:
        if GRANT_OPERATOR is None:
            notes.append("skipped: TRELLIS_GRANT_OPERATOR (the command making a handle an operator) is not set")
        else:
            denied = refusal(lambda: bob.call(list_module_metrics))
            expect(denied.status == 403 and denied.code == "FORBIDDEN", f"before the grant: {denied}")
            grant_operator(GRANT_OPERATOR, bob_handle)  # read from the database: bob's session has it at once
            metrics = {m.module_id: m for m in bob.call(list_module_metrics).items}
            expect("tags" in metrics and metrics["tags"].calls >= 2, f"module metrics {list(metrics)}")
            refused_modules = bob.call(list_refused_modules).items
            submitted = [ListListingsForReviewStatesItem.SUBMITTED]
            queue = list(bob.paginate(list_listings_for_review, states=submitted))
            expect(all(q.state == "SUBMITTED" for q in queue), f"the queue holds {[q.state for q in queue]}")
            expect(space_id in [q.space_id for q in queue], f"ann's listing is not among the {len(queue)} queued")
            approve = ListingDecision(approved=ListingDecisionApproved.YES)
            decided = bob.call(decide_listing, space_id, body=approve)
            expect(decided.state == "APPROVED" and decided.listed, f"decided {decided.to_dict()}")
            public: ListingView = visitor.call(get_listing, space_id)
            expect(public.title == "Tour space", f"the public listing {public.to_dict()}")
            owned = ann.call(get_marketplace_settings, space_id)
            expect(owned.state == "APPROVED" and owned.listed, f"ann's settings after approval {owned.to_dict()}")
            told = [t.unread for t in ann.paginate(list_threads) if t.participant.handle == "system"]
            expect(told == [1], f"ann's threads with system (unread): {told}")
            notes.append(f"{bob_handle} refused (403), made an operator; {len(metrics)} modules' metrics")
            notes.append(f"{len(refused_modules)} refused; ann's listing queued ({len(queue)}), approved, public, ann told")

    with tour_part("export") as notes:
        with ann.export_forms(states=["DRAFT", "SUBMITTED"]) as rows:
            instances = [InstanceView.from_dict(row) for row in rows]
        expect(claim in [i.form_id for i in instances], "the forms export (jsonl) misses the claim")
        with ann.export_forms(format="csv", configuration_id=config.id) as csv_rows:
            header, *records = list(csv_rows)
        expect(header[:1] == ["formId"] and "amount" in header, f"forms CSV header {header}")
        expect([r[header.index("amount")] for r in records if r[0] == claim] == ["43.00"], "the claim's CSV row")
        with ann.export_items(flow.id, ALL_VIEW) as item_rows:
            items = [ItemDetail.from_dict(row) for row in item_rows]
        expect([i.item_id for i in items] == [claim], f"the items export (jsonl) holds {[i.item_id for i in items]}")
        with ann.export_items(flow.id, ALL_VIEW, format="csv", configuration_id=config.id) as item_csv:
            lines = list(item_csv.lines())
        expect(lines[0].startswith("itemId,") and lines[0].endswith("\r\n") and len(lines) == 2, f"items CSV {lines}")
        notes.append(
            f"forms: {len(instances)} as JSON lines, {len(records)} CSV rows; items: {len(items)} and {len(lines) - 1}"
        )

    with tour_part("logout") as notes:
        ann_token = ann.token
        ann.logout()
        ann.token = ann_token
        refused = refusal(lambda: ann.call(get_me))
        expect(refused.status == 401, f"after logout GET /v0/users/me answered {refused}")
        notes.append(f"the old session is refused: {refused.status} {refused.code}")


def main() -> None:
    started = time.monotonic()
    try:
        license_key = (DATA / "license.key").read_text().strip()
        with (
            Trellis(BASE, license_key) as ann,
            Trellis(BASE, license_key) as bob,
            Trellis(BASE, license_key) as visitor,
        ):
            tour(ann, bob, visitor)
    except TrellisError as error:
        print(f"tour failed in {part}: {error} (request {error.request_id or '?'})", file=sys.stderr)
        for detail in error.details:
            print(f"  {detail.path}: {detail.code} {detail.message}", file=sys.stderr)
        sys.exit(1)
    except Exception as error:
        print(f"tour failed in {part}: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
    skipped = "" if GRANT_OPERATOR else " (but the operator's: skipped)"
    print(f"tour (Python): every family of routes{skipped} answered as expected ({time.monotonic() - started:.1f}s)")


if __name__ == "__main__":
    main()

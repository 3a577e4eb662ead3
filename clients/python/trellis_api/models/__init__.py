"""Contains all the data models used in inputs/outputs"""

from .actor import Actor
from .analysis_step_view import AnalysisStepView
from .analysis_step_view_state import AnalysisStepViewState
from .append_upload_tus_resumable import AppendUploadTusResumable
from .asset_analysis import AssetAnalysis
from .asset_analysis_state import AssetAnalysisState
from .asset_created import AssetCreated
from .asset_part import AssetPart
from .asset_state_change import AssetStateChange
from .asset_state_change_state import AssetStateChangeState
from .asset_upload import AssetUpload
from .asset_uploaded import AssetUploaded
from .asset_view import AssetView
from .asset_view_state import AssetViewState
from .attachment_descriptor import AttachmentDescriptor
from .attachment_upload import AttachmentUpload
from .available_transition import AvailableTransition
from .avatar_ref import AvatarRef
from .avatar_upload import AvatarUpload
from .avatar_uploaded import AvatarUploaded
from .channel_space_set import ChannelSpaceSet
from .channel_view import ChannelView
from .channel_view_role import ChannelViewRole
from .comment_view import CommentView
from .complete_reset import CompleteReset
from .complete_signup import CompleteSignup
from .configuration_view import ConfigurationView
from .configuration_view_config import ConfigurationViewConfig
from .configuration_view_state import ConfigurationViewState
from .configuration_wrapper import ConfigurationWrapper
from .configuration_wrapper_roles_type_0 import ConfigurationWrapperRolesType0
from .configuration_wrapper_state import ConfigurationWrapperState
from .connected_module import ConnectedModule
from .connected_module_config import ConnectedModuleConfig
from .connected_modules import ConnectedModules
from .connected_space_view import ConnectedSpaceView
from .correspondent_view import CorrespondentView
from .create_upload_tus_resumable import CreateUploadTusResumable
from .download_asset_part import DownloadAssetPart
from .error_body import ErrorBody
from .error_code import ErrorCode
from .error_envelope import ErrorEnvelope
from .event_ticket import EventTicket
from .export_forms_format import ExportFormsFormat
from .export_forms_states_item import ExportFormsStatesItem
from .export_items_format import ExportItemsFormat
from .finding_view import FindingView
from .form_configuration import FormConfiguration
from .form_configuration_bundle import FormConfigurationBundle
from .form_configuration_bundle_common import FormConfigurationBundleCommon
from .form_configuration_bundle_common_buttons import (
    FormConfigurationBundleCommonButtons,
)
from .form_configuration_bundle_details import FormConfigurationBundleDetails
from .form_configuration_bundle_pages import FormConfigurationBundlePages
from .form_configuration_controls import FormConfigurationControls
from .form_configuration_field import FormConfigurationField
from .form_configuration_field_texts import FormConfigurationFieldTexts
from .form_configuration_field_texts_options import FormConfigurationFieldTextsOptions
from .form_configuration_field_texts_options_additional_property import (
    FormConfigurationFieldTextsOptionsAdditionalProperty,
)
from .form_configuration_field_type import FormConfigurationFieldType
from .form_configuration_file import FormConfigurationFile
from .form_configuration_integrations import FormConfigurationIntegrations
from .form_configuration_metadata import FormConfigurationMetadata
from .form_configuration_option import FormConfigurationOption
from .form_configuration_page import FormConfigurationPage
from .form_configuration_page_texts import FormConfigurationPageTexts
from .form_configuration_page_texts_fields import FormConfigurationPageTextsFields
from .form_configuration_translations import FormConfigurationTranslations
from .form_integrations import FormIntegrations
from .form_metadata import FormMetadata
from .form_payload import FormPayload
from .form_payload_fields_type_0 import FormPayloadFieldsType0
from .form_payload_state_type_0 import FormPayloadStateType0
from .general_settings import GeneralSettings
from .get_item_item_type import GetItemItemType
from .grant_view import GrantView
from .history_entry import HistoryEntry
from .history_entry_action import HistoryEntryAction
from .history_entry_state import HistoryEntryState
from .instance_summary import InstanceSummary
from .instance_summary_state import InstanceSummaryState
from .instance_view import InstanceView
from .instance_view_fields import InstanceViewFields
from .instance_view_integrations import InstanceViewIntegrations
from .instance_view_metadata import InstanceViewMetadata
from .instance_view_state import InstanceViewState
from .invite_request import InviteRequest
from .invite_response import InviteResponse
from .invite_response_response import InviteResponseResponse
from .invite_result import InviteResult
from .invite_result_state import InviteResultState
from .invite_view import InviteView
from .invite_view_state import InviteViewState
from .invites_created import InvitesCreated
from .item_detail import ItemDetail
from .item_detail_fields_item import ItemDetailFieldsItem
from .item_detail_payload import ItemDetailPayload
from .item_state import ItemState
from .list_assets_states_item import ListAssetsStatesItem
from .list_envelope_asset_part import ListEnvelopeAssetPart
from .list_envelope_asset_view import ListEnvelopeAssetView
from .list_envelope_channel_view import ListEnvelopeChannelView
from .list_envelope_comment_view import ListEnvelopeCommentView
from .list_envelope_configuration_view import ListEnvelopeConfigurationView
from .list_envelope_connected_space_view import ListEnvelopeConnectedSpaceView
from .list_envelope_history_entry import ListEnvelopeHistoryEntry
from .list_envelope_instance_summary import ListEnvelopeInstanceSummary
from .list_envelope_invite_view import ListEnvelopeInviteView
from .list_envelope_member_view import ListEnvelopeMemberView
from .list_envelope_message_view import ListEnvelopeMessageView
from .list_envelope_module_metrics_view import ListEnvelopeModuleMetricsView
from .list_envelope_module_view import ListEnvelopeModuleView
from .list_envelope_pending_registration_view import ListEnvelopePendingRegistrationView
from .list_envelope_refused_module_view import ListEnvelopeRefusedModuleView
from .list_envelope_reviewed_listing_view import ListEnvelopeReviewedListingView
from .list_envelope_space_view import ListEnvelopeSpaceView
from .list_envelope_thread_view import ListEnvelopeThreadView
from .list_envelope_trending_view import ListEnvelopeTrendingView
from .list_envelope_user_summary import ListEnvelopeUserSummary
from .list_envelope_view_item import ListEnvelopeViewItem
from .list_envelope_workflow_history_entry import ListEnvelopeWorkflowHistoryEntry
from .list_envelope_workflow_view import ListEnvelopeWorkflowView
from .list_form_configurations_states_item import ListFormConfigurationsStatesItem
from .list_forms_states_item import ListFormsStatesItem
from .list_listings_for_review_states_item import ListListingsForReviewStatesItem
from .listing_decision import ListingDecision
from .listing_decision_approved import ListingDecisionApproved
from .listing_view import ListingView
from .listing_view_membership import ListingViewMembership
from .live_asset_changed import LiveAssetChanged
from .live_comment_created import LiveCommentCreated
from .live_event_data import LiveEventData
from .live_invite_created import LiveInviteCreated
from .live_item_changed import LiveItemChanged
from .live_item_changed_change import LiveItemChangedChange
from .live_message_created import LiveMessageCreated
from .live_registration_changed import LiveRegistrationChanged
from .live_unread_changed import LiveUnreadChanged
from .login import Login
from .marketplace_settings_change import MarketplaceSettingsChange
from .marketplace_settings_change_membership import MarketplaceSettingsChangeMembership
from .marketplace_settings_change_rules_type_0 import (
    MarketplaceSettingsChangeRulesType0,
)
from .marketplace_settings_view import MarketplaceSettingsView
from .marketplace_settings_view_membership import MarketplaceSettingsViewMembership
from .marketplace_settings_view_rules import MarketplaceSettingsViewRules
from .marketplace_settings_view_state import MarketplaceSettingsViewState
from .member_view import MemberView
from .member_view_role import MemberViewRole
from .message_sent import MessageSent
from .message_view import MessageView
from .module_metrics_view import ModuleMetricsView
from .module_metrics_view_failures import ModuleMetricsViewFailures
from .module_view import ModuleView
from .module_view_config_schema import ModuleViewConfigSchema
from .new_asset import NewAsset
from .new_channel import NewChannel
from .new_comment import NewComment
from .new_message import NewMessage
from .new_registration import NewRegistration
from .new_space import NewSpace
from .payload_wrapper import PayloadWrapper
from .pending_registration_view import PendingRegistrationView
from .permissions import Permissions
from .problem import Problem
from .profile import Profile
from .proposer import Proposer
from .refused_module_view import RefusedModuleView
from .registration_decision import RegistrationDecision
from .registration_decision_approved import RegistrationDecisionApproved
from .registration_view import RegistrationView
from .registration_view_state import RegistrationViewState
from .resend_reset_pin import ResendResetPin
from .reset_token import ResetToken
from .reviewed_listing_view import ReviewedListingView
from .reviewed_listing_view_membership import ReviewedListingViewMembership
from .reviewed_listing_view_state import ReviewedListingViewState
from .role_change import RoleChange
from .role_change_role import RoleChangeRole
from .roles import Roles
from .session_info import SessionInfo
from .session_opened import SessionOpened
from .signup_started import SignupStarted
from .space_view import SpaceView
from .space_view_role import SpaceViewRole
from .start_reset import StartReset
from .start_signup import StartSignup
from .start_workflow import StartWorkflow
from .start_workflow_item_type_type_0 import StartWorkflowItemTypeType0
from .terminate_upload_tus_resumable import TerminateUploadTusResumable
from .thread_view import ThreadView
from .transition_item_item_type import TransitionItemItemType
from .transition_request import TransitionRequest
from .trending_view import TrendingView
from .unread_count import UnreadCount
from .update_item_item_type import UpdateItemItemType
from .update_profile import UpdateProfile
from .upload_created import UploadCreated
from .upload_status_tus_resumable import UploadStatusTusResumable
from .uploaded import Uploaded
from .use_upload import UseUpload
from .use_uploads import UseUploads
from .user_ref import UserRef
from .user_summary import UserSummary
from .validation_result import ValidationResult
from .validation_result_config import ValidationResultConfig
from .verified import Verified
from .verify_reset_pin import VerifyResetPin
from .verify_signup_pin import VerifySignupPin
from .view_item import ViewItem
from .view_item_fields import ViewItemFields
from .workflow_configuration import WorkflowConfiguration
from .workflow_configuration_bundle import WorkflowConfigurationBundle
from .workflow_configuration_bundle_details import WorkflowConfigurationBundleDetails
from .workflow_configuration_bundle_transitions import (
    WorkflowConfigurationBundleTransitions,
)
from .workflow_configuration_bundle_transitions_additional_property import (
    WorkflowConfigurationBundleTransitionsAdditionalProperty,
)
from .workflow_configuration_bundle_views import WorkflowConfigurationBundleViews
from .workflow_configuration_bundle_views_additional_property import (
    WorkflowConfigurationBundleViewsAdditionalProperty,
)
from .workflow_configuration_bundle_workbaskets import (
    WorkflowConfigurationBundleWorkbaskets,
)
from .workflow_configuration_bundle_workbaskets_additional_property import (
    WorkflowConfigurationBundleWorkbasketsAdditionalProperty,
)
from .workflow_configuration_controls import WorkflowConfigurationControls
from .workflow_configuration_detail_field import WorkflowConfigurationDetailField
from .workflow_configuration_detail_field_overrides import (
    WorkflowConfigurationDetailFieldOverrides,
)
from .workflow_configuration_integrations import WorkflowConfigurationIntegrations
from .workflow_configuration_integrations_forms import (
    WorkflowConfigurationIntegrationsForms,
)
from .workflow_configuration_metadata_rule import WorkflowConfigurationMetadataRule
from .workflow_configuration_network import WorkflowConfigurationNetwork
from .workflow_configuration_transition import WorkflowConfigurationTransition
from .workflow_configuration_translations import WorkflowConfigurationTranslations
from .workflow_configuration_view import WorkflowConfigurationView
from .workflow_configuration_view_form import WorkflowConfigurationViewForm
from .workflow_configuration_view_form_metadata import (
    WorkflowConfigurationViewFormMetadata,
)
from .workflow_configuration_view_forms import WorkflowConfigurationViewForms
from .workflow_configuration_workbasket import WorkflowConfigurationWorkbasket
from .workflow_history_entry import WorkflowHistoryEntry
from .workflow_history_entry_action import WorkflowHistoryEntryAction
from .workflow_validation import WorkflowValidation
from .workflow_validation_config import WorkflowValidationConfig
from .workflow_view import WorkflowView
from .workflow_view_config import WorkflowViewConfig
from .workflow_wrapper import WorkflowWrapper

__all__ = (
    "Actor",
    "AnalysisStepView",
    "AnalysisStepViewState",
    "AppendUploadTusResumable",
    "AssetAnalysis",
    "AssetAnalysisState",
    "AssetCreated",
    "AssetPart",
    "AssetStateChange",
    "AssetStateChangeState",
    "AssetUpload",
    "AssetUploaded",
    "AssetView",
    "AssetViewState",
    "AttachmentDescriptor",
    "AttachmentUpload",
    "AvailableTransition",
    "AvatarRef",
    "AvatarUpload",
    "AvatarUploaded",
    "ChannelSpaceSet",
    "ChannelView",
    "ChannelViewRole",
    "CommentView",
    "CompleteReset",
    "CompleteSignup",
    "ConfigurationView",
    "ConfigurationViewConfig",
    "ConfigurationViewState",
    "ConfigurationWrapper",
    "ConfigurationWrapperRolesType0",
    "ConfigurationWrapperState",
    "ConnectedModule",
    "ConnectedModuleConfig",
    "ConnectedModules",
    "ConnectedSpaceView",
    "CorrespondentView",
    "CreateUploadTusResumable",
    "DownloadAssetPart",
    "ErrorBody",
    "ErrorCode",
    "ErrorEnvelope",
    "EventTicket",
    "ExportFormsFormat",
    "ExportFormsStatesItem",
    "ExportItemsFormat",
    "FindingView",
    "FormConfiguration",
    "FormConfigurationBundle",
    "FormConfigurationBundleCommon",
    "FormConfigurationBundleCommonButtons",
    "FormConfigurationBundleDetails",
    "FormConfigurationBundlePages",
    "FormConfigurationControls",
    "FormConfigurationField",
    "FormConfigurationFieldTexts",
    "FormConfigurationFieldTextsOptions",
    "FormConfigurationFieldTextsOptionsAdditionalProperty",
    "FormConfigurationFieldType",
    "FormConfigurationFile",
    "FormConfigurationIntegrations",
    "FormConfigurationMetadata",
    "FormConfigurationOption",
    "FormConfigurationPage",
    "FormConfigurationPageTexts",
    "FormConfigurationPageTextsFields",
    "FormConfigurationTranslations",
    "FormIntegrations",
    "FormMetadata",
    "FormPayload",
    "FormPayloadFieldsType0",
    "FormPayloadStateType0",
    "GeneralSettings",
    "GetItemItemType",
    "GrantView",
    "HistoryEntry",
    "HistoryEntryAction",
    "HistoryEntryState",
    "InstanceSummary",
    "InstanceSummaryState",
    "InstanceView",
    "InstanceViewFields",
    "InstanceViewIntegrations",
    "InstanceViewMetadata",
    "InstanceViewState",
    "InviteRequest",
    "InviteResponse",
    "InviteResponseResponse",
    "InviteResult",
    "InviteResultState",
    "InviteView",
    "InviteViewState",
    "InvitesCreated",
    "ItemDetail",
    "ItemDetailFieldsItem",
    "ItemDetailPayload",
    "ItemState",
    "ListAssetsStatesItem",
    "ListEnvelopeAssetPart",
    "ListEnvelopeAssetView",
    "ListEnvelopeChannelView",
    "ListEnvelopeCommentView",
    "ListEnvelopeConfigurationView",
    "ListEnvelopeConnectedSpaceView",
    "ListEnvelopeHistoryEntry",
    "ListEnvelopeInstanceSummary",
    "ListEnvelopeInviteView",
    "ListEnvelopeMemberView",
    "ListEnvelopeMessageView",
    "ListEnvelopeModuleMetricsView",
    "ListEnvelopeModuleView",
    "ListEnvelopePendingRegistrationView",
    "ListEnvelopeRefusedModuleView",
    "ListEnvelopeReviewedListingView",
    "ListEnvelopeSpaceView",
    "ListEnvelopeThreadView",
    "ListEnvelopeTrendingView",
    "ListEnvelopeUserSummary",
    "ListEnvelopeViewItem",
    "ListEnvelopeWorkflowHistoryEntry",
    "ListEnvelopeWorkflowView",
    "ListFormConfigurationsStatesItem",
    "ListFormsStatesItem",
    "ListListingsForReviewStatesItem",
    "ListingDecision",
    "ListingDecisionApproved",
    "ListingView",
    "ListingViewMembership",
    "LiveAssetChanged",
    "LiveCommentCreated",
    "LiveEventData",
    "LiveInviteCreated",
    "LiveItemChanged",
    "LiveItemChangedChange",
    "LiveMessageCreated",
    "LiveRegistrationChanged",
    "LiveUnreadChanged",
    "Login",
    "MarketplaceSettingsChange",
    "MarketplaceSettingsChangeMembership",
    "MarketplaceSettingsChangeRulesType0",
    "MarketplaceSettingsView",
    "MarketplaceSettingsViewMembership",
    "MarketplaceSettingsViewRules",
    "MarketplaceSettingsViewState",
    "MemberView",
    "MemberViewRole",
    "MessageSent",
    "MessageView",
    "ModuleMetricsView",
    "ModuleMetricsViewFailures",
    "ModuleView",
    "ModuleViewConfigSchema",
    "NewAsset",
    "NewChannel",
    "NewComment",
    "NewMessage",
    "NewRegistration",
    "NewSpace",
    "PayloadWrapper",
    "PendingRegistrationView",
    "Permissions",
    "Problem",
    "Profile",
    "Proposer",
    "RefusedModuleView",
    "RegistrationDecision",
    "RegistrationDecisionApproved",
    "RegistrationView",
    "RegistrationViewState",
    "ResendResetPin",
    "ResetToken",
    "ReviewedListingView",
    "ReviewedListingViewMembership",
    "ReviewedListingViewState",
    "RoleChange",
    "RoleChangeRole",
    "Roles",
    "SessionInfo",
    "SessionOpened",
    "SignupStarted",
    "SpaceView",
    "SpaceViewRole",
    "StartReset",
    "StartSignup",
    "StartWorkflow",
    "StartWorkflowItemTypeType0",
    "TerminateUploadTusResumable",
    "ThreadView",
    "TransitionItemItemType",
    "TransitionRequest",
    "TrendingView",
    "UnreadCount",
    "UpdateItemItemType",
    "UpdateProfile",
    "UploadCreated",
    "UploadStatusTusResumable",
    "Uploaded",
    "UseUpload",
    "UseUploads",
    "UserRef",
    "UserSummary",
    "ValidationResult",
    "ValidationResultConfig",
    "Verified",
    "VerifyResetPin",
    "VerifySignupPin",
    "ViewItem",
    "ViewItemFields",
    "WorkflowConfiguration",
    "WorkflowConfigurationBundle",
    "WorkflowConfigurationBundleDetails",
    "WorkflowConfigurationBundleTransitions",
    "WorkflowConfigurationBundleTransitionsAdditionalProperty",
    "WorkflowConfigurationBundleViews",
    "WorkflowConfigurationBundleViewsAdditionalProperty",
    "WorkflowConfigurationBundleWorkbaskets",
    "WorkflowConfigurationBundleWorkbasketsAdditionalProperty",
    "WorkflowConfigurationControls",
    "WorkflowConfigurationDetailField",
    "WorkflowConfigurationDetailFieldOverrides",
    "WorkflowConfigurationIntegrations",
    "WorkflowConfigurationIntegrationsForms",
    "WorkflowConfigurationMetadataRule",
    "WorkflowConfigurationNetwork",
    "WorkflowConfigurationTransition",
    "WorkflowConfigurationTranslations",
    "WorkflowConfigurationView",
    "WorkflowConfigurationViewForm",
    "WorkflowConfigurationViewFormMetadata",
    "WorkflowConfigurationViewForms",
    "WorkflowConfigurationWorkbasket",
    "WorkflowHistoryEntry",
    "WorkflowHistoryEntryAction",
    "WorkflowValidation",
    "WorkflowValidationConfig",
    "WorkflowView",
    "WorkflowViewConfig",
    "WorkflowWrapper",
)

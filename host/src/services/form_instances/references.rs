//! What an instance's payload refers to: the space it joins and the workflow it asks to start.

use crate::domain::forms::{CheckedPayload, InstanceState};
use crate::domain::problems::Problems;
use crate::error::{Error, Result};
use crate::services::form_configurations::Configuration;
use crate::store::{NewItemStart, SessionUser};

use super::FormInstances;

impl FormInstances {
    /// The workflow start a SUBMITTED payload asks for with `integrations.workflowConfigurationId`, decided
    /// before the write so that the instance and its item are stored together or not at all. An existing
    /// instance (`form_id`) already in a workflow starts nothing; moving it needs `confirmSwitch`.
    pub(super) async fn requested_start(
        &self,
        user: &SessionUser,
        configuration: &Configuration,
        payload: &CheckedPayload,
        form_id: Option<&str>,
    ) -> Result<Option<NewItemStart>> {
        let Some(workflow_id) = payload.workflow_configuration_id() else { return Ok(None) };
        if payload.state != InstanceState::Submitted {
            return Ok(None);
        }
        if let Some(form_id) = form_id
            && self.store.workflow_items.workflow_item(form_id).await?.is_some()
        {
            return Ok(None);
        }
        // A named workflow was checked when the payload named it (see `check_references`); one gone or
        // changed since refuses the submission rather than storing it without its item.
        let path = "/payload/integrations/workflowConfigurationId";
        let Some(workflow) = self.workflows.load(&workflow_id.to_string(), false).await? else {
            return Err(Error::invalid(path, "UNKNOWN_WORKFLOW", "no workflow configuration has this id"));
        };
        let mut problems = Problems::new();
        for (code, message) in workflow.start_refusals(&configuration.parsed, payload.state) {
            problems.push(path, code, message);
        }
        problems.finish(())?;
        Ok(Some(workflow.start_by(user)))
    }

    /// A space must have the user as a member (any other space, one read through a channel too,
    /// is unknown to them); a workflow
    /// must exist and allow this form configuration.
    pub(super) async fn check_references(&self, user: &SessionUser, checked: &CheckedPayload) -> Result<()> {
        let mut problems = Problems::new();
        if let Some(space_id) = checked.space_id()
            && self.spaces.role_of(&space_id.to_string(), &user.user_id).await?.is_none_or(|role| !role.may_write())
        {
            problems.push(
                "/payload/integrations/spaceId",
                "UNKNOWN_SPACE",
                "no space with this id has you as a member",
            );
        }
        if let Some(workflow_id) = checked.workflow_configuration_id() {
            let path = "/payload/integrations/workflowConfigurationId";
            let workflow = self.workflows.load(&workflow_id.to_string(), false).await?;
            let visible = match &workflow {
                Some(workflow) => self.workflows.is_visible_to(user, workflow).await?,
                None => false,
            };
            match workflow {
                Some(workflow) if workflow.parsed.allows_form(&checked.configuration_id) => {}
                // Whether a workflow the user cannot see exists, or what it takes, is not theirs to learn.
                Some(_) if visible => problems.push(
                    path,
                    "FORM_NOT_ALLOWED",
                    "the workflow's allowlist does not hold this form configuration",
                ),
                _ => problems.push(path, "UNKNOWN_WORKFLOW", "no workflow configuration has this id"),
            }
        }
        Ok(problems.finish(())?)
    }
}

//! Outgoing mail: SMTP when configured, else one `.eml` file per mail in `<data-dir>/outbox/`.

use std::time::Duration;

use anyhow::Context;
use lettre::message::Mailbox;
use lettre::{AsyncFileTransport, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::config::Config;

pub enum Mailer {
    Smtp { transport: AsyncSmtpTransport<Tokio1Executor>, from: Mailbox },
    Outbox { transport: AsyncFileTransport<Tokio1Executor>, from: Mailbox },
}

impl Mailer {
    pub fn from_config(config: &Config) -> anyhow::Result<Self> {
        let from: Mailbox = config.mail.from.parse().context("parsing mail.from")?;
        match &config.mail.smtp_url {
            Some(url) => {
                let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
                    .context("parsing mail.smtp_url")?
                    .timeout(Some(Duration::from_secs(10)))
                    .build();
                Ok(Self::Smtp { transport, from })
            }
            None => {
                let dir = config.outbox_dir();
                // Its mails hold PINs: only this user reads the folder.
                crate::infra::private_files::private_dir(&dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
                Ok(Self::Outbox { transport: AsyncFileTransport::new(dir), from })
            }
        }
    }

    /// Sends a plain-text mail to one address.
    pub async fn send(&self, to: &str, subject: &str, body: String) -> anyhow::Result<()> {
        let from = match self {
            Self::Smtp { from, .. } | Self::Outbox { from, .. } => from.clone(),
        };
        let message = Message::builder()
            .from(from)
            .to(to.parse().context("parsing the recipient")?)
            .subject(subject)
            .body(body)
            .context("building the mail")?;
        match self {
            Self::Smtp { transport, .. } => {
                transport.send(message).await.context("sending mail over SMTP")?;
            }
            Self::Outbox { transport, .. } => {
                transport.send(message).await.context("writing mail to the outbox")?;
            }
        }
        Ok(())
    }
}

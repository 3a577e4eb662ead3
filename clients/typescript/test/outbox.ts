// The PIN a server without SMTP mails: each mail is a file in `<data-dir>/outbox/`.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** The 6-digit PIN of the newest mail to `email`, waiting up to 10 seconds for it. */
export async function pinFromOutbox(data: string, email: string): Promise<string> {
  const outbox = join(data, "outbox");
  for (let attempt = 0; attempt < 50; attempt++) {
    const names = await readdir(outbox).catch(() => [] as string[]);
    let pin: string | undefined;
    for (const name of names.sort()) {
      const mail = (await readFile(join(outbox, name), "utf8")).replace(/\r/g, "");
      if (!mail.toLowerCase().includes(email.toLowerCase())) continue;
      pin = mail.split("\n").filter((line) => /^ +[0-9]{6}$/.test(line)).at(-1)?.trim() ?? pin;
    }
    if (pin) return pin;
    await sleep(200);
  }
  throw new Error(`no PIN for ${email} in ${outbox}`);
}

import "server-only";
import nodemailer from "nodemailer";
import { config } from "@/lib/config";
import { reportUnexpectedError } from "@/lib/errors";

export type Mail = { to: string; subject: string; text: string };

/**
 * Send a mail when SMTP_URL is configured. Returns whether it was handed to the
 * server; a failure is logged and never undoes the change that caused it
 * (callers show the link to pass on either way).
 */
export async function sendMail(mail: Mail): Promise<boolean> {
  const smtp = config().smtp;
  if (!smtp) return false;
  try {
    const transport = nodemailer.createTransport(smtp.url);
    await transport.sendMail({ from: smtp.from, ...mail });
    return true;
  } catch (error) {
    reportUnexpectedError(error, `sendMail to ${mail.to}`);
    return false;
  }
}

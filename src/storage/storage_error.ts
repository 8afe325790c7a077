// The one error type of the storage seam: a code a caller can compare between polls (to log
// a streak once), the location it is about, and a message that says what to fix.

export class StorageError extends Error {
  constructor(
    message: string,
    /** 'ENOENT' for a location that does not exist; else the provider's error name or Node's errno code. */
    readonly code: string,
    /** The location the error is about. */
    readonly path: string,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

/** A location that does not exist (TF: "Could not find base path …"). */
export function notFoundError(location: string, detail: string): StorageError {
  return new StorageError(`${location} does not exist (${detail})`, 'ENOENT', location);
}

/** Words to add to an error whose cause is missing or refused credentials. */
export function credentialHint(code: string, scheme: 's3' | 'gs'): string {
  if (
    !/credential|accessdenied|forbidden|invalidaccesskeyid|signaturedoesnotmatch|unauthorized|unauthenticated|expiredtoken|invalidtoken|401|403/i.test(
      code,
    )
  )
    return '';
  return scheme === 's3'
    ? ' (credentials come from the AWS SDK chain: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, a web identity token, or the instance role)'
    : ' (credentials come from GOOGLE_APPLICATION_CREDENTIALS, gcloud application-default login, or the instance service account)';
}

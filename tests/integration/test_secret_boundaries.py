"""Secrets and control characters at every boundary: what reaches the model, the database, the
exports, ``--json`` and the terminal. A real headless run against local servers; then the
database files and every output are searched for each secret, raw and JSON-escaped."""

from __future__ import annotations

import json

from tests.helpers import call
from tests.integration.test_cli import cli, isolated_env
from tests.servers import Reply

# One credential of each family, in the shape the provider documents (none is real).
SECRETS = {
    "aws key id": "AKIAZ7QW3ERTYUIOP4XJ",
    "aws secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
    "github": "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
    "openai": "sk-proj-Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8L9z0X1c2V3b4N5m6",
    "stripe": "sk_live_51HbQ2eK3mX9vYz8Tq7WpLs4Rn6Dj0Fa",
    "google": "AIzaSyD9xK2mP4qR6sT8uV0wX2yZ4aB6cD8eF0g",
    "slack webhook": "T0123ABCD/B0456EFGH/a1B2c3D4e5F6g7H8i9J0k1L2",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5"
           "MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "gitlab": "glpat-xY9zW8vU7tS6rQ5pO4nM",
    "hugging face": "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",
    "url password": "Zq8-mW3rT9pLx2v",
    "assignment": "Tr0ub4dor&3xKq9!",
    "pem body": "MIIEowIBAAKCAQEA7bq98zLx4nN2gYb4t1vQ3kRzW8pFy6sJd0cHm5XoPq2eLiUa",
    "bearer": "a8F3kL0pQ7zX2mN9vB4cR6tY1uW5eS3dG8hJ0kL2",
    # formats taken from the vendored rule sets (Nosey Parker, gitleaks) and the supplement
    "docker hub": "dckr_pat_hc8VxYclixyTr2rDFsa2rqzkP3Y",
    "pinecone": "pcsk_7Gq2Rt_" + "Zm4Xv8Lp2Nc6Bw0Jd3Hf5Ks9Qt1Yr7Ue4Ia2Ox6Pl8Mn0Bv3Cx5Zs7Dq9Fw1Gh3Jk5Lt7Ry9"[:63],
    # a value longer than any cut: masked whole
    "long base64 key": "TUlJRXZnSUJBREFOQmdrcWhraUc5dzBCQVFFRkFBU0NCS2d3Z2dTa0FnRUFBb0lCQVFD" * 40,
}
CONTROLS = ["\x9b", "\x9d", "\x85", "\x7f", "\x1b", "\u202e"]


def page_with_secrets() -> str:
    return f"""<html><head><title>Ops notes</title></head><body><article><h1>Ops notes</h1>
<p>The deploy hook is https://hooks.slack.com/services/{SECRETS['slack webhook']} and the session token is
{SECRETS['jwt']}, which the runbook says to rotate weekly together with the other credentials.</p>
<p>The old key was kept here by mistake:</p><pre>-----BEGIN RSA PRIVATE KEY-----
{SECRETS['pem body']}
-----END RSA PRIVATE KEY-----</pre>
<p>Requests carried Authorization: Bearer {SECRETS['bearer']} in their headers, and the GitLab token
{SECRETS['gitlab']} was pasted in a comment. Text that reorders itself: \u202eevil\u202c.</p>
</article></body></html>"""


def forms(secret: str) -> list[str]:
    """The secret as it could appear in a file: raw, and JSON-escaped."""
    return [secret, json.dumps(secret)[1:-1]]


def test_every_credential_family_is_redacted_at_every_boundary(tmp_path, chat_server, page_server, searx_server):
    url = page_server.add("/ops", page_with_secrets())
    searx_server.results[f"status {SECRETS['hugging face']}"] = [{"url": url, "title": "Ops", "content": "notes"}]
    model_text = (f"<think>The user pasted {SECRETS['stripe']} and {SECRETS['google']};\tpassword = "
                  f"\"{SECRETS['assignment']}\" too.\nAlso {''.join(CONTROLS)} odd bytes.</think>")
    chat_server.script(
        Reply(model_text + call("search", query=[f"status {SECRETS['hugging face']}"])),
        Reply("<think>Read it.</think>" + call("visit", url=[url.replace("http://", f"http://ops:{SECRETS['url password']}@")],
                                                goal=f"find {SECRETS['openai']}")),
        Reply(f"<think>Done.</think><answer>Rotate everything; the page lists the webhook [1]. {''.join(CONTROLS)}"
              "</answer>"),
    )
    question = (f"Our keys {SECRETS['aws key id']} and\naws_secret_access_key={SECRETS['aws secret']} and "
                f"{SECRETS['github']} leaked, with {SECRETS['docker hub']}, {SECRETS['pinecone']} and\n"
                f"PRIVATE_KEY_B64={SECRETS['long base64 key']}\n: which rotation steps does the ops page list?")
    env = isolated_env(tmp_path)
    run = cli("run", question, "--yes", "--json", "--model", "openai/test-model", "--api-base", chat_server.base_url,
              "--search-backend", "searxng", "--searxng-url", searx_server.url, "--allow-private-urls", "--no-extract",
              env=env)
    assert run.returncode == 0, run.stderr
    sid = json.loads(run.stdout)["session_id"]
    outputs = {"--json": run.stdout, "trace": run.stderr}
    for fmt in ("md", "json", "jsonl"):
        exported = cli("sessions", "export", sid, "--format", fmt, env=env)
        assert exported.returncode == 0, exported.stderr
        outputs[fmt] = exported.stdout
    outputs["show"] = cli("sessions", "show", sid, env=env).stdout
    outputs["list"] = cli("sessions", "list", env=env).stdout
    outputs["model requests"] = json.dumps(chat_server.requests, ensure_ascii=False)
    database = b"".join(f.read_bytes() for f in (tmp_path / "data").iterdir())
    for family, secret in SECRETS.items():
        for form in forms(secret):
            for where, text in outputs.items():
                assert form not in text, f"{family} reached {where}"
            assert form.encode() not in database, f"{family} reached the database"
    assert "[REDACTED]" in outputs["md"] and "[REDACTED]" in outputs["model requests"]
    # Outputs carry no controls, neither raw nor escaped; terminal text no bidi overrides.
    for where in ("--json", "json", "jsonl", "md", "trace", "show"):
        text = outputs[where]
        for ch in CONTROLS[:-1]:
            assert ch not in text and f"\\u{ord(ch):04x}" not in text.lower(), (where, repr(ch))
    for where in ("trace", "show", "list"):
        assert "\u202e" not in outputs[where]

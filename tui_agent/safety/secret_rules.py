"""Credential formats as their providers document them: prefixes, lengths, charsets, checksums.

Each :data:`TOKEN_FORMATS` entry is ``(name, starts, regex)``. ``starts`` lists the literal
prefixes a match begins with (space-separated), or ``~anchor`` for the few formats without one
(a literal the match contains, such as ``Q~`` of Azure AD secrets). The regex matches the whole
credential; a named group ``s`` marks the secret part when the match carries a readable prefix
worth keeping (``hooks.slack.com/services/`` + secret). :func:`scan` looks only at
whitespace-free runs long enough to hold a credential, finds the prefixes with one factored
alternation, tries the formats that start there, and checks each match with :func:`plausible`
(placeholders like ``ghp_xxxx…`` or ``AKIAXXXXXXXXXXXXXXXX`` are not credentials).

Sources: the providers' documentation of their token formats (GitHub, GitLab, Slack, AWS, Google,
Stripe, npm, PyPI, Hugging Face, OpenAI, Anthropic, …) and, for the long tail, the formats a
public scanner's rule set (gitleaks) describes. Stripe ``pk_`` publishable keys and Mapbox
``pk.`` tokens are public by design (they are embedded in web pages) and are not redacted.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from functools import lru_cache

# A credential body whose characters are this uniform is a placeholder (``xxxx…``, ``0000…``).
MIN_BODY_DISTINCT_CHARS = 6
"""Fewest distinct characters in the last three quarters of a prefixed token for it to count."""

_B = r"(?![A-Za-z0-9_])"  # right boundary: the token does not continue
_BD = r"(?![A-Za-z0-9_-])"  # right boundary for bodies that may contain '-'
_B64 = "A-Za-z0-9+/"
_URLSAFE = r"A-Za-z0-9_\-"

TOKEN_FORMATS: tuple[tuple[str, str], ...] = (
    # --- cloud ---
    ("aws-access-key-id", "A3T AKIA ASIA ABIA ACCA", r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}" + _B),
    ("google-api-key", "AIza", r"AIza[" + _URLSAFE + r"]{35}(?![A-Za-z0-9_])"),
    ("google-oauth-client-secret", "GOCSPX-", r"GOCSPX-[" + _URLSAFE + r"]{28}" + _BD),
    ("google-oauth-access-token", "ya29.", r"ya29\.[" + _URLSAFE + r"]{30,}"),
    ("azure-ad-client-secret", "~Q~", r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])"),
    ("azure-sas-signature", "sig=", r"(?<=[?&])sig=(?P<s>[A-Za-z0-9%+/=_\-]{30,})"),
    ("alibaba-access-key-id", "LTAI", r"LTAI[A-Za-z0-9]{20}" + _B),
    ("digitalocean-token", "dop_v1_ doo_v1_ dor_v1_", r"do[opr]_v1_[a-f0-9]{64}" + _B),
    ("heroku-api-key", "HRKU-", r"HRKU-[" + _URLSAFE + r"]{58,62}" + _BD),
    ("databricks-token", "dapi", r"dapi[a-f0-9]{32}(?:-\d)?" + _B),
    ("flyio-token", "fo1_ fm1 fm2", r"(?:fo1_[" + _URLSAFE + r"]{43}|fm[12][ar]?_[" + _B64 + r"]{60,}={0,3})"),
    ("terraform-cloud-token", "~.atlasv1.", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,70}"),
    ("vault-token", "hvs. hvb. hvr.", r"(?:hvs\.[" + _URLSAFE + r"]{90,}|hvb\.[" + _URLSAFE + r"]{100,}|hvr\.[" + _URLSAFE + r"]{60,})"),
    ("vault-token-legacy", "s.", r"s\.(?=[A-Za-z]*\d)[A-Za-z0-9]{24}" + _B),
    ("cloudflare-origin-ca-key", "v1.0-", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    ("yandex-cloud-key", "YC AQVN t1.", r"(?:YC[" + _URLSAFE + r"]{38}|AQVN[" + _URLSAFE + r"]{35,38}|t1\.[" + _URLSAFE
     + r"]+={0,2}\.[" + _URLSAFE + r"]{86}={0,2})" + _BD),
    ("openshift-token", "sha256~", r"sha256~[" + _URLSAFE + r"]{43}" + _BD),
    ("datafactory-shir-key", "IR@", r"IR@[0-9a-zA-Z\-]{36}@[^@\s]{1,100}@[0-9a-zA-Z=\-]*@[" + _B64 + r"=]{44}"),
    # --- source hosting, CI, package registries ---
    ("github-token", "ghp_ gho_ ghu_ ghs_ ghr_", r"gh[pousr]_[A-Za-z0-9]{36,251}" + _B),
    ("github-fine-grained-pat", "github_pat_", r"github_pat_[A-Za-z0-9_]{22,251}" + _B),
    ("gitlab-token", "glpat- gldt- glft- glrt- glimt- gloas- glsoat- glffct- glagent- glptt- glcbt- GR1348941", r"(?:gl(?:pat|dt|ft|rt|imt|oas|soat|ffct|agent)-[" + _URLSAFE + r"]{20,300}(?:\.[0-9a-z]{9})?"
     r"|glptt-[0-9a-f]{40}|glcbt-[0-9a-zA-Z]{1,5}_[" + _URLSAFE + r"]{20}|GR1348941[" + _URLSAFE + r"]{20})" + _BD),
    ("gitlab-session-cookie", "_gitlab_session=", r"_gitlab_session=(?P<s>[0-9a-z]{32})" + _B),
    ("npm-token", "npm_", r"npm_[A-Za-z0-9]{36}" + _B),
    ("pypi-token", "pypi-", r"pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[" + _URLSAFE + r"]{50,}"),
    ("rubygems-token", "rubygems_", r"rubygems_[a-f0-9]{48}" + _B),
    ("clojars-token", "CLOJARS_", r"CLOJARS_[a-z0-9]{60}" + _B),
    ("artifactory-token", "AKCp cmVmd", r"(?:AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59})" + _B),
    ("sourcegraph-token", "sgp_", r"sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}" + _B),
    ("pulumi-token", "pul-", r"pul-[a-f0-9]{40}" + _B),
    ("buildkite-token", "bkua_", r"bkua_[a-f0-9]{40}" + _B),
    ("circleci-token", "CCIPAT_", r"CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}" + _B),
    ("scalingo-token", "tk-us-", r"tk-us-[" + _URLSAFE + r"]{48}" + _BD),
    ("octopus-deploy-key", "API-", r"API-[A-Z0-9]{26}" + _B),
    ("sonarqube-token", "squ_ sqp_ sqa_", r"sq[upa]_[A-Za-z0-9]{40}" + _B),
    ("prefect-token", "pnu_", r"pnu_[A-Za-z0-9]{36}" + _B),
    ("harness-token", "pat. sat.", r"(?:pat|sat)\.[" + _URLSAFE + r"]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}" + _B),
    ("infracost-token", "ico-", r"ico-[A-Za-z0-9]{32}" + _B),
    ("tailscale-key", "tskey-", r"tskey-(?:api|auth|client|webhook)-[A-Za-z0-9]{10,}-[A-Za-z0-9]{20,}" + _B),
    ("defined-networking-key", "dnkey-", r"dnkey-[A-Za-z0-9=_\-]{26}-[A-Za-z0-9=_\-]{52}"),
    # --- AI ---
    ("openai-anthropic-key", "sk-", r"sk-(?=[A-Za-z0-9_\-]*[0-9])[A-Za-z0-9][A-Za-z0-9_\-]{15,}"),
    ("huggingface-token", "hf_ api_org_", r"(?:hf_|api_org_)[A-Za-z0-9]{34}" + _B),
    ("groq-key", "gsk_", r"gsk_[A-Za-z0-9]{48}" + _B),
    ("perplexity-key", "pplx-", r"pplx-[A-Za-z0-9]{48}" + _B),
    ("xai-key", "xai-", r"xai-[A-Za-z0-9]{80}" + _B),
    ("replicate-token", "r8_", r"r8_[A-Za-z0-9]{37}" + _B),
    ("langsmith-key", "lsv2_", r"lsv2_(?:pt|sk)_[A-Za-z0-9]{32}_[A-Za-z0-9]{10}" + _B),
    ("claude-code-session-url", "claude.ai CLAUDE.AI Claude.ai", r"(?i:claude\.ai)/code/(?P<s>session_[A-Za-z0-9]{16,})"),
    # --- chat, mail, messaging ---
    ("slack-token", "xoxa- xoxb- xoxp- xoxo- xoxs- xoxr- xoxe-", r"xox[abposre]-(?=[A-Za-z0-9\-]*\d)[A-Za-z0-9\-]{10,250}" + _B),
    ("slack-config-token", "xoxe.", r"xoxe\.xox[bp]-\d-[A-Za-z0-9]{100,}" + _B),
    ("slack-app-token", "xapp-", r"xapp-\d-[A-Za-z0-9]{6,}-\d{6,}-[A-Za-z0-9]{20,}" + _B),
    ("slack-webhook", "hooks.slack.com", r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9+/_\-]{20,})"),
    ("discord-webhook", "discord.com discordapp.com", r"discord(?:app)?\.com/api/webhooks/(?P<s>\d{10,20}/[" + _URLSAFE + r"]{40,})"),
    ("discord-bot-token", "~.", r"[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}" + _BD),
    ("teams-webhook", "webhookb2/", r"(?<=\.webhook\.office\.com/)webhookb2/(?P<s>[A-Za-z0-9@/_\-]{40,})"),
    ("telegram-bot-token", "~:A", r"\d{5,16}:A[A-Za-z0-9_\-]{34}" + _BD),
    ("sendgrid-key", "SG.", r"SG\.[A-Za-z0-9_=\-]{16,32}\.[A-Za-z0-9_=\-]{16,64}" + _BD + r"|SG\.[A-Za-z0-9_=.\-]{66}" + _BD),
    ("brevo-key", "xkeysib- xsmtpsib-", r"x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}" + _B),
    ("mailgun-key", "key- pubkey-", r"(?:pub)?key-[a-f0-9]{32}" + _B),
    ("mailchimp-key", "~-us", r"[a-f0-9]{32}-us\d{1,2}" + _B),
    ("twilio-sid", "AC SK", r"(?:AC|SK)[a-f0-9]{32}" + _B),
    # --- payments, commerce ---
    ("stripe-secret-key", "sk_live_ sk_test_ rk_live_ rk_test_", r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,247}" + _B),
    ("stripe-webhook-secret", "whsec_", r"whsec_[A-Za-z0-9]{32,}" + _B),
    ("square-token", "sq0atp- sq0csp- EAAA", r"(?:sq0(?:atp|csp)-[" + _URLSAFE + r"]{22,60}|EAAA[" + _URLSAFE + r"]{60})" + _BD),
    ("facebook-access-token", "EAA", r"EAA[A-Za-z0-9]{90,}" + _B),
    ("shopify-token", "shpat_ shpca_ shppa_ shpss_", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _B),
    ("braintree-token", "access_token$ production_ sandbox_", r"(?:access_token\$(?:production|sandbox)\$[a-z0-9]{16}(?:\$[a-f0-9]{32})?"
     r"|(?:production|sandbox)_[a-z0-9]{8}_[a-z0-9]{16})" + _B),
    ("test-live-key", "test_ live_", r"(?:test|live)_(?:pub_)?(?=[A-Za-z]*\d)[A-Za-z0-9]{30,40}" + _B),
    ("adyen-api-key", "AQE", r"AQE[A-Za-z0-9]{5,}\.[A-Za-z0-9=_\-]{50,80}" + _BD),
    ("flutterwave-key", "FLW", r"FLW(?:PUB|SEC)K_TEST-[A-Ha-h0-9]{32}-X|FLWSECK_TEST-[A-Ha-h0-9]{12}"),
    ("shippo-token", "shippo_", r"shippo_(?:live|test)_[a-f0-9]{40}" + _B),
    ("duffel-token", "duffel_", r"duffel_(?:test|live)_[A-Za-z0-9_=\-]{43}" + _BD),
    ("easypost-key", "EZAK EZTK", r"(?<![+/])EZ[AT]K[A-Za-z0-9]{54}" + _B),
    ("castai-key", "castai_v1_", r"castai_v1_[A-Za-z0-9]{64}_[A-Za-z0-9]{8}" + _B),
    ("clickhouse-key", "4b1d", r"4b1d[A-Za-z0-9]{38}" + _B),
    # --- SaaS tools ---
    ("atlassian-token", "ATATT3 ATCTT3", r"AT(?:ATT|CTT)3[A-Za-z0-9_=\-]{150,}"),
    ("linear-key", "lin_api_ lin_oauth_", r"lin_(?:api|oauth)_[A-Za-z0-9]{40}" + _B),
    ("notion-token", "secret_ ntn_", r"(?:secret_[A-Za-z0-9]{43}|ntn_\d{11}[A-Za-z0-9]{35})" + _B),
    ("postman-key", "PMAK-", r"PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}" + _B),
    ("grafana-token", "glc_ glsa_ eyJrIjoi", r"(?:glc_[" + _B64 + r"]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"
     r"|eyJrIjoi[A-Za-z0-9]{70,400}={0,3})"),
    ("newrelic-key", "NRAK- NRII- NRJS- NRRA- NRAA-", r"NR(?:AK|II|JS|RA|AA)-[A-Za-z0-9\-]{19,32}" + _BD),
    ("sentry-token", "sntrys_ sntryu_", r"sntry[us]_[A-Za-z0-9+/=_\-]{40,}"),
    ("doppler-token", "dp.", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}" + _B),
    ("dynatrace-token", "dt0c01.", r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}" + _B),
    ("frameio-token", "fio-u-", r"fio-u-[A-Za-z0-9=_\-]{64}" + _BD),
    ("typeform-token", "tfp_", r"tfp_[A-Za-z0-9_=.\-]{59}" + _BD),
    ("readme-key", "rdme_", r"rdme_[a-z0-9]{70}" + _B),
    ("planetscale-token", "pscale_", r"pscale_(?:pw|tkn|oauth)_[A-Za-z0-9_=.\-]{32,64}" + _BD),
    ("settlemint-token", "sm_pat_ sm_aat_ sm_sat_", r"sm_(?:pat|aat|sat)_[A-Za-z0-9]{12,}" + _B),
    ("chief-tools-token", "ctp_ cto_ ctr_", r"ct[pro]_[A-Za-z0-9]{30,248}" + _B),
    ("airtable-pat", "pat", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}" + _B),
    ("adobe-client-secret", "p8e-", r"p8e-[A-Za-z0-9]{32}" + _B),
    ("intra42-secret", "s-s4t2", r"s-s4t2(?:ud|af)-[a-f0-9]{64}" + _B),
    ("maxmind-license-key", "~_mmk", r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk" + _B),
    ("authress-key", "sc_ ext_ scauth_ authress_", r"(?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.acc[_\-][a-z0-9\-]{10,32}"
     r"\.[a-z0-9+/_=\-]{30,120}"),
    ("supabase-token", "sbp_ sb_secret_", r"(?:sbp_[a-f0-9]{40}|sb_secret_[" + _URLSAFE + r"]{20,})" + _BD),
    ("figma-token", "figd_", r"figd_[" + _URLSAFE + r"]{40,}"),
    ("dropbox-token", "sl.", r"sl\.(?:u\.)?[" + _URLSAFE + r"]{130,}"),
    ("twitter-bearer-token", "AAAAAAAAAAAAAAAAAAAAAA", r"A{22}[A-Za-z0-9%]{30,}"),
    ("age-secret-key", "AGE-SECRET-KEY-1", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    ("1password-token", "ops_eyJ A3-", r"(?:ops_eyJ[" + _B64 + r"]{100,}={0,3}"
     r"|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})" + _B),
    ("django-insecure-key", "django-insecure-", r"django-insecure-[^\"'\s`]{10,250}"),
    ("sidekiq-credential", "BUNDLE_", r"BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM[\"']?[ \t]*[:=][ \t]*[\"']?"
     r"(?P<s>[a-f0-9]{8}:[a-f0-9]{8})"),
    # --- generic shapes with a structural check ---
    ("jwt", "eyJ", r"(?<![+/])eyJ[" + _URLSAFE + r"]{8,}={0,2}\.ey[" + _URLSAFE + r"/\\]{8,}={0,2}\.[" + _URLSAFE + r"/\\]*={0,2}"),
    ("private-key-der", "MII MIG MHcCAQEE", r"(?<![+/])M(?:II[" + _B64 + r"]{3}IBA[AD]|IG[" + _B64 + r"]AgEA|HcCAQEE)[" + _B64 + r"]{40,}={0,2}"),
)

MIN_CANDIDATE_CHARS = 16
"""Every format is at least this long and has no whitespace, so only whitespace-free runs of at
least this length are searched (prose is mostly shorter words; skipping them is most of the
speed)."""


MAX_TOKEN_CHARS = 4_096
"""A format is tried on at most this many characters from its prefix, so each try costs at most
this much; a match that fills the window is masked to the end of its whitespace-free run."""


class _Format:
    __slots__ = ("name", "regex", "min_len")

    def __init__(self, name: str, regex: str) -> None:
        self.name = name
        self.regex = re.compile(regex)
        self.min_len = _min_width(regex)


def _min_width(regex: str) -> int:
    """Fewest characters ``regex`` can match (0 if the parser's internals are unavailable)."""
    try:
        return int(re._parser.parse(regex).getwidth()[0])  # type: ignore[attr-defined]
    except Exception:  # pragma: no cover - a different re implementation
        return 0


@lru_cache(maxsize=1)
def _tables() -> tuple[re.Pattern[str], dict[str, list[tuple[str, _Format]]], list[tuple[str, _Format]]]:
    """(prefix finder, formats by first prefix character, anchored formats)."""
    by_first: dict[str, list[tuple[str, _Format]]] = {}
    anchored: list[tuple[str, _Format]] = []
    prefixes: set[str] = set()
    for name, starts, rx in TOKEN_FORMATS:
        fmt = _Format(name, rx)
        if starts.startswith("~"):
            anchored.append((starts[1:], fmt))
            continue
        for prefix in starts.split():
            by_first.setdefault(prefix[0], []).append((prefix, fmt))
            prefixes.add(prefix)
    for bucket in by_first.values():
        bucket.sort(key=lambda pf: -len(pf[0]))  # the most specific prefix first
    # A credential starts at a token boundary, not inside a longer word, file name or
    # hyphenated name (video_box.ico-7a38…png, 2018-xoxo-indieweb).
    finder = re.compile(r"(?<![A-Za-z0-9_.\-])" + _trie(prefixes))
    return finder, by_first, anchored


def _trie(words: set[str]) -> str:
    """A regex matching any of ``words``, factored by common prefixes (fast for re's backtracker)."""
    root: dict = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        branches = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if "" in node:
            return "(?:" + body + ")?"
        return body

    return emit(root)


_RUN_RE = re.compile(r"\s\S{%d,}" % MIN_CANDIDATE_CHARS)  # starts at whitespace: re skips ahead fast
_FIRST_RUN_RE = re.compile(r"\S{%d,}" % MIN_CANDIDATE_CHARS)


def candidate_runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each whitespace-free run of at least MIN_CANDIDATE_CHARS characters."""
    runs = [(m.start() + 1, m.end()) for m in _RUN_RE.finditer(text)]
    first = _FIRST_RUN_RE.match(text)
    if first:
        runs.insert(0, first.span())
    return runs


def scan(text: str) -> list[tuple[int, int, str]]:
    """(start, end, format name) of each plausible credential; (start, end) is the part to mask.

    Linear in ``text``: runs are found in one pass; in a run, the prefix finder is one pass and
    each prefix tried costs at most MAX_TOKEN_CHARS (every format is bounded by that window, and
    lookarounds look at most a character past it); prefixes inside a token already matched are
    skipped. Anchored formats (no literal prefix) have bounded repetitions only, so ``finditer``
    costs a bounded amount per position.
    """
    finder, by_first, anchored = _tables()
    found: list[tuple[int, int, str]] = []
    for run_start, run_end in candidate_runs(text):
        read_until = run_start  # prefixes inside a token already matched are not tried again
        for hit in finder.finditer(text, run_start, run_end):
            pos = hit.start()
            if pos < read_until:
                continue
            window = min(run_end, pos + MAX_TOKEN_CHARS)
            for prefix, fmt in by_first.get(text[pos], ()):
                if not text.startswith(prefix, pos):
                    continue
                m = fmt.regex.match(text, pos, window)
                if m is None:
                    continue
                read_until = m.end()
                if plausible(fmt.name, m.group(0)):
                    start, end = _secret_span(m)
                    if end == window < run_end:  # longer than the window: the rest of the run too
                        end = read_until = run_end
                    found.append((start, end, fmt.name))
                    break
        run = text[run_start:run_end]
        for anchor, fmt in anchored:
            if len(run) >= fmt.min_len and anchor in run:
                for m in fmt.regex.finditer(text, run_start, run_end):
                    if plausible(fmt.name, m.group(0)):
                        found.append((*_secret_span(m), fmt.name))
    return found


def _secret_span(m: re.Match[str]) -> tuple[int, int]:
    """The part of a match to mask: the ``s`` group when the format has one, else all of it."""
    if "s" in m.re.groupindex and m.group("s") is not None:
        return m.span("s")
    return m.span()


def plausible(name: str, token: str) -> bool:
    """Reject placeholders and shapes that fail a format's structural check."""
    if name == "jwt":
        return jwt_header_ok(token)
    if name == "github-token" and github_checksum_ok(token):
        return True
    body = token[len(token) // 4:]
    return len(set(body)) >= min(MIN_BODY_DISTINCT_CHARS, max(2, len(body) // 3))


def jwt_header_ok(token: str) -> bool:
    """The first part of a JWT decodes (base64url) to a JSON object naming its ``alg``."""
    header = token.split(".", 1)[0].rstrip("=")
    try:
        raw = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))
    except (binascii.Error, ValueError):
        return False
    return raw.startswith(b"{") and b'"alg"' in raw


_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def base62(n: int, width: int = 6) -> str:
    digits = ""
    while n:
        n, r = divmod(n, 62)
        digits = _BASE62[r] + digits
    return digits.rjust(width, "0")


def github_checksum_ok(token: str) -> bool:
    """GitHub's classic tokens end in a CRC32 (base62, 6 characters) of their 30 random characters."""
    body = token.split("_", 1)[-1]
    if len(body) != 36:
        return False
    return base62(zlib.crc32(body[:30].encode())) == body[30:]

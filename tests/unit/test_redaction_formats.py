"""Every credential format the hand-written secret_rules.py held before issue 28 is still redacted
by the one pipeline: the ones dropped because a vendored rule set finds them, and the ones moved to
secret_rule_data/supplement.toml (samples: tests/fixtures/format_samples.jsonl)."""

from __future__ import annotations

import json
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from tui_agent.safety import rule_sets
from tui_agent.safety.detectors import DETECTORS, RULE_SETS, Finding
from tui_agent.safety.redaction import REDACTED, find_secrets, redact

SAMPLES = [r for r in map(json.loads, (Path(__file__).parents[1] / "fixtures" / "format_samples.jsonl").open())
           if "_meta" not in r]


def leaked(secret: str, out: str) -> bool:
    n = min(8, len(secret))
    return any(secret[i:i + n] in out for i in range(len(secret) - n + 1))


@pytest.mark.parametrize("sample", [s for s in SAMPLES if s["home"] == "vendored"],
                         ids=lambda s: s["format"])
def test_a_dropped_format_is_found_by_the_vendored_rule_sets(sample):
    found = [f for f in find_secrets(sample["text"], {}) if f.kind.split(":")[0] in ("gitleaks", "noseyparker", "kingfisher")]
    assert found, sample["format"]
    assert not leaked(sample["secret"], redact(sample["text"], {}))


@pytest.mark.parametrize("sample", [s for s in SAMPLES if s["home"] == "supplement"],
                         ids=lambda s: s["format"])
def test_a_moved_format_is_found_by_its_supplement_rule(sample):
    kinds = {f.kind for f in find_secrets(sample["text"], {})}
    assert f"tui-agent:{sample['format']}" in kinds
    assert not leaked(sample["secret"], redact(sample["text"], {}))


def test_every_supplement_rule_has_a_sample_and_compiles():
    config = tomllib.loads(resources.files("tui_agent.safety").joinpath("secret_rule_data/supplement.toml").read_text())
    ids = {r["id"] for r in config["rules"]}
    sampled = {s["format"] for s in SAMPLES if s["home"] == "supplement"}
    assert sampled <= ids
    assert not [i for i in rule_sets.skipped() if i.startswith("tui-agent:")]


def test_every_detector_answers_the_same_protocol():
    text = 'password = "Tr0ub4dor&3xq" and AKIAZ7Q2M4N6P8R1T3V5'
    for detector in DETECTORS:
        for finding in detector.find(text):
            assert isinstance(finding, Finding) and 0 <= finding.start <= finding.end <= len(text)
    assert any(f.kind.endswith("aws-access-key-id") or "aws" in f.kind for f in RULE_SETS.find(text))


def test_two_keys_one_space_apart_are_both_redacted():
    a, b = "AKIAZ7Q2M4N6P8R1T3V5", "AKIAB9C8D7E6F5G4H3J2"
    assert redact(f"{a} {b}", {}) == f"{REDACTED} {REDACTED}"


def test_a_word_after_a_token_prefix_without_a_digit_is_not_a_token():
    text = "run sk-learn-preprocessing-pipeline-helpers today"
    assert redact(text, {}) == text


def test_a_links_sig_parameter_is_an_azure_sas_signature_only_in_its_shape():
    link = "https://www.google.com/url?q=x&sig=ACfU3U29u_4iKyCCTQY0jIR24-QtVAOnDQ&usg=AOvVaw"
    assert redact(link, {}) == link
    sas = "https://acct.blob.core.windows.net/c/b?sv=2021-06-08&sp=r&sig=Yq3kP9vT2mL8nR4sW7yZ1aB5cD6eF0gH2iJ3kL4mN5o%3D"
    assert "Yq3kP9vT" not in redact(sas, {})


def test_a_hex_digest_as_a_links_token_parameter_is_kept_but_an_access_token_is_not():
    link = "https://reader.elsevier.com/reader/sd/pii/S2451943X19301279?token=86EDF35738B3A9F4EC8DC0C9A18465BB987541AC"
    assert redact(link, {}) == link
    api = "https://api.example.com/v1/data?access_token=86edf35738b3a9f4ec8dc0c9a18465bb987541ac"
    assert "86edf357" not in redact(api, {})
    opaque = "https://api.example.com/v1/data?token=Zk9xQ2m7Lp4Rt8Vw1Ys6Bn3Hc5Jd0Ka2"
    assert "Zk9xQ2m7" not in redact(opaque, {})


def test_a_secret_xml_element_in_braces_loses_its_random_words_and_keeps_the_rest():
    text = ("<secret>{abstract AQAAABAAA 5422358j60yxo9nc0dbpxby602tsxd6j}</secret>\n"
            "<password>{AQAAABAAAAAQc0rFsd9Lx3dTBUO4Kd+1wGl8XzdYvhAY6kgq8hRpnuY=}</password>")
    assert redact(text, {}) == f"<secret>{{abstract AQAAABAAA {REDACTED}}}</secret>\n<password>{{{REDACTED}}}</password>"


def test_an_xml_element_of_names_or_words_is_left_alone():
    text = "<key>CFBundleIdentifier</key>\n<description>{the token audit of the login team}</description>"
    assert redact(text, {}) == text

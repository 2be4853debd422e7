"""Each public package's face, pinned (httpx's ``tests/test_exported_members.py`` is the model):
adding, removing or renaming a public name is a decision this file records. And one name means
one thing: no two packages define the same public name, and a name exported by two packages is
the same object (``Revision`` from ``forms`` and ``protocol`` is ``mcp_elicit.revisions``'); no
package reaches into another's private modules."""

from __future__ import annotations

import ast
import importlib
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "src" / "mcp_elicit"

EXPORTED: dict[str, list[str]] = {
    "mcp_elicit.check": [
        "CHECKS",
        "Check",
        "Outcome",
        "REVISIONS",
        "Report",
        "ServerRefused",
        "SpecRef",
        "Status",
        "UnknownCheck",
        "check_client",
        "check_server",
        "select",
    ],
    "mcp_elicit.cli": [
        "main",
    ],
    "mcp_elicit.client": [
        "Accept",
        "AnswersError",
        "Asking",
        "Attachment",
        "AuditLog",
        "Cancel",
        "Decision",
        "Decline",
        "ElicitationHandler",
        "ElicitationRefused",
        "ElicitingClient",
        "FormPrompt",
        "Notice",
        "OUTCOME_META",
        "Policy",
        "ProtocolMismatch",
        "RateLimit",
        "RefusedInputLoop",
        "Renderer",
        "ScriptedAnswer",
        "ScriptedRenderer",
        "TaskError",
        "TaskStatus",
        "Tracker",
        "UrlElicitationLoop",
        "UrlPrompt",
        "attachment",
        "load_answers",
    ],
    "mcp_elicit.client.web": [
        "PAGE_CLOSED",
        "STOPPED",
        "WebRenderer",
        "open_page",
    ],
    "mcp_elicit.flows": [
        "DEFAULT_MAX_OPEN_FLOWS",
        "FlowError",
        "FlowFinished",
        "FlowNotFound",
        "FlowOfAnotherUser",
        "FlowRecord",
        "FlowStatus",
        "Flows",
        "TooManyOpenFlows",
    ],
    "mcp_elicit.forms": [
        "Choice",
        "ConversionError",
        "Description",
        "Email",
        "Field",
        "FieldKind",
        "Form",
        "Format",
        "InvalidSchema",
        "JSONValue",
        "LATEST",
        "NotSecret",
        "Pattern",
        "Problem",
        "Revision",
        "SchemaBuildError",
        "Title",
        "Url",
        "check_schema",
        "convert",
        "fields_of",
        "lint_schema",
        "schema_of",
    ],
    "mcp_elicit.gateway": [
        "BearerTokens",
        "DEFAULT_HOLD_LIMIT",
        "Gateway",
        "Instance",
        "LINK_WAIT",
        "Limits",
        "Safeguards",
        "Upstream",
        "VERDICT_META",
    ],
    "mcp_elicit.i18n": [
        "N_",
        "_",
        "aligned",
        "available_languages",
        "catalog_for",
        "current_language",
        "format_date",
        "format_datetime",
        "format_number",
        "from_environment",
        "language",
        "negotiate",
        "ngettext",
        "register_catalog",
        "set_default_language",
        "set_language",
        "text_width",
    ],
    "mcp_elicit.integrations": [],
    "mcp_elicit.integrations.fastmcp": [
        "ElicitingFastMCPClient",
        "FastMCPHandler",
    ],
    "mcp_elicit.integrations.google_adk": [
        "AdkElicitation",
        "ElicitingMcpToolset",
        "is_local",
        "session_timeout",
    ],
    "mcp_elicit.integrations.langchain": [
        "InterruptAnswerError",
        "InterruptReview",
        "MODERN",
        "RequestReview",
        "answer_interrupt",
        "is_elicitation_interrupt",
        "resume_from",
        "review_interrupt",
    ],
    "mcp_elicit.integrations.pydantic_ai": ["ElicitingMCPToolset"],
    "mcp_elicit.protocol": [
        "ASKING_METHODS",
        "ContentItem",
        "DetailedTask",
        "EARLY_DRAFT",
        "ElicitResult",
        "ElicitationModes",
        "ElicitationRequest",
        "FORM_AND_URL",
        "FORM_ONLY",
        "InputRequired",
        "NO_MODES",
        "ProtocolProblem",
        "RULES",
        "Revision",
        "RevisionRules",
        "TERMINAL_STATUSES",
        "Task",
        "TaskStatusValue",
        "TaskSupport",
        "TaskUpdate",
        "capabilities_for",
        "capabilities_from_request",
        "codes",
        "create_task_result",
        "declares_tasks",
        "early_result",
        "elicit_request",
        "elicit_result",
        "elicitation_complete_params",
        "error_response",
        "form_request_params",
        "get_task_result",
        "ignored_keys",
        "input_required_result",
        "invalid_params_error",
        "iso_time",
        "missing_capability_error",
        "modes_from_capabilities",
        "parse_create_task_result",
        "parse_elicit_request",
        "parse_elicit_result",
        "parse_elicitation_complete",
        "parse_elicitation_params",
        "parse_get_task_result",
        "parse_input_required_result",
        "parse_iso_time",
        "parse_missing_capability_error",
        "parse_related_task",
        "parse_task",
        "parse_task_id",
        "parse_task_update",
        "parse_url_required_error",
        "read_content_items",
        "related_task_meta",
        "request_meta",
        "requested_task_ttl",
        "retry_params",
        "rules_for",
        "server_tasks_capability",
        "task_ack",
        "task_object",
        "tasks_declaration",
        "tasks_required_error",
        "tool_task_support",
        "track_request_params",
        "undeclared_mode_problem",
        "unsupported_version_error",
        "url_request_params",
        "url_required_error",
        "with_related_task",
    ],
    "mcp_elicit.revisions": [
        "ALIASES",
        "AUTO",
        "EARLY_DRAFT_VERSION",
        "KNOWN_VERSIONS",
        "LATEST",
        "PROPOSED_BY_HAND",
        "PROTOCOL_CHOICES",
        "RELEASED",
        "REVISION_NAMES",
        "Revision",
        "SdkClientMode",
        "UPSTREAM_CHOICES",
        "negotiated_revision",
        "sdk_client_mode",
    ],
    "mcp_elicit.server": [
        "Accepted",
        "AccessTokenIdentity",
        "Answer",
        "Cancelled",
        "CannotAsk",
        "CapabilityRequired",
        "Declined",
        "DeploymentKey",
        "Elicitation",
        "Identity",
        "InvalidAnswer",
        "LinkInText",
        "LocalIdentity",
        "ModeUnavailable",
        "NotExpressible",
        "Reply",
        "SecretInForm",
        "TaskSettings",
        "UnsafeLink",
        "UrlRequired",
        "Vault",
        "ask",
        "ask_text",
        "ask_url",
        "choose",
        "confirm",
        "forget_secret",
        "secret",
        "secret_required",
        "stored_secret",
        "task_status",
    ],
    "mcp_elicit.server.oauth": [
        "AuthorizationFailed",
        "JwtVerifier",
        "MetadataError",
        "OAuthProvider",
        "OidcIdentity",
        "ProviderMetadata",
        "ProviderToken",
        "authorization_required",
        "authorize",
        "discover",
        "forget_authorization",
        "protected_resource",
        "stored_authorization",
    ],
    "mcp_elicit.server.pages": [
        "PAGES_PREFIX",
        "SECRET_PURPOSE",
        "flow_path",
        "hosted_pages",
        "page_hosts",
    ],
    "mcp_elicit.stores": [
        "FinishFeed",
        "FlowExists",
        "FlowRecord",
        "FlowStatus",
        "LIVE",
        "MemoryStore",
        "SQLiteStore",
        "SealedSecret",
        "Store",
        "StoreError",
        "TaskExists",
        "TaskFeed",
        "TaskRecord",
        "TooManyFlows",
        "TooManyTasks",
        "open_store",
    ],
    "mcp_elicit.tasks": [
        "AnswerVerdict",
        "Answered",
        "Fenced",
        "Lease",
        "MAX_KEYS",
        "MAX_OUTSTANDING",
        "NO_CHANGE",
        "NoChange",
        "TaskState",
        "TaskStateError",
        "TooManyQuestions",
        "WAITING",
        "answer",
        "broken_rules",
        "cancel",
        "create",
        "expire",
        "finish",
        "note",
        "orphan",
        "renew",
        "request_input",
        "settle",
        "withdraw",
    ],
    "mcp_elicit.testing": [
        "ReceivedQuestion",
        "Result",
        "TestSession",
        "connect",
        "decline_page",
        "enter_secret",
    ],
    "mcp_elicit.urls": [
        "DEFAULT_POLICY",
        "DisplayHost",
        "Reason",
        "ReasonCode",
        "Severity",
        "UrlPolicy",
        "UrlVerdict",
        "Verdict",
        "check_url",
        "check_url_async",
    ],
}


@pytest.mark.parametrize("name", sorted(EXPORTED))
def test_the_public_face_is_pinned(name: str) -> None:
    module = importlib.import_module(name)
    assert sorted(module.__all__) == EXPORTED[name]
    assert len(set(module.__all__)) == len(module.__all__), "a name listed twice"
    for exported in module.__all__:
        assert getattr(module, exported, None) is not None, f"{name}.{exported} is missing"


def test_every_public_package_is_pinned() -> None:
    # A package whose name has no part starting with "_" is public, unless it is one of those
    # listed here as internal (the demo's servers, a web renderer's static files).
    internal = {"mcp_elicit.demo"}
    found = set()
    for init in PACKAGE.rglob("__init__.py"):
        parts = init.parent.relative_to(PACKAGE.parent).parts
        name = ".".join(parts)
        if name != "mcp_elicit" and not any(p.startswith("_") for p in parts):
            found.add(name)
    # Modules pinned here that are not packages: revisions, and each framework's adapter.
    modules = {
        "mcp_elicit.revisions",
        "mcp_elicit.integrations.fastmcp",
        "mcp_elicit.integrations.google_adk",
        "mcp_elicit.integrations.langchain",
        "mcp_elicit.integrations.pydantic_ai",
    }
    assert found - internal == set(EXPORTED) - modules


def test_a_name_exported_twice_is_one_object() -> None:
    holders: dict[str, list[str]] = defaultdict(list)
    for name in EXPORTED:
        for exported in EXPORTED[name]:
            holders[exported].append(name)
    for exported, packages in holders.items():
        objects = {id(getattr(importlib.import_module(p), exported)) for p in packages}
        assert len(objects) == 1, f"{exported} means different things in {packages}"


# -- one name, one thing, inside the code too ----------------------------------------------------

# Names every package may define for itself by convention: a type variable, a program's entry,
# a module's logger.
CONVENTIONAL = {"T", "main", "logger"}


def top_level_names(path: Path) -> set[str]:
    """The public names a module defines at its top (classes, functions, assignments)."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            found.add(node.name)
        elif isinstance(node, ast.Assign):
            found.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.add(node.target.id)
    return {n for n in found if not n.startswith("_") and n not in CONVENTIONAL}


def defined_twice(modules: dict[str, set[str]]) -> dict[str, list[str]]:
    """Names defined in modules of more than one top-level package (``modules``: a module's
    path relative to the package, its names)."""
    where: dict[str, set[str]] = defaultdict(set)
    for module, names in modules.items():
        for name in names:
            where[name].add(module)
    return {
        name: sorted(found)
        for name, found in where.items()
        if len({m.split("/")[0].removesuffix(".py") for m in found}) > 1
    }


def test_no_name_is_defined_in_two_packages() -> None:
    modules = {
        str(p.relative_to(PACKAGE)): top_level_names(p)
        for p in PACKAGE.rglob("*.py")
        if p.parent != PACKAGE
    }
    assert defined_twice(modules) == {}


def test_the_twin_check_sees_a_twin() -> None:
    found = defined_twice(
        {"server/a.py": {"Answer", "Only"}, "server/b.py": {"Answer"}, "client/c.py": {"Answer"}}
    )
    assert found == {"Answer": ["client/c.py", "server/a.py", "server/b.py"]}


def private_imports_across_packages(path: Path) -> list[str]:
    """The private modules of another package that ``path`` imports (``_sdk``, the package's
    sanctioned private leaf, aside)."""
    own = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] != "mcp_elicit" or len(parts) < 3 or parts[1] in (own, "_sdk"):
                continue
            if any(part.startswith("_") for part in parts[2:]) and (PACKAGE / parts[1]).is_dir():
                module = PACKAGE.joinpath(*parts[1:])
                if module.with_suffix(".py").exists() or module.is_dir():
                    found.append(name)
    return found


@pytest.mark.parametrize(
    "path",
    sorted(PACKAGE.rglob("*.py")),
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_no_package_imports_another_packages_private_module(path: Path) -> None:
    assert private_imports_across_packages(path) == []

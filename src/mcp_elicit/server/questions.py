"""A question to ask: its schema in every revision, its form, and how an answer becomes a value.

Built once per Python type (``ask``), or per set of options (``confirm``, ``choose``), and
cached: the schema for a revision is computed on first use and then is a dictionary lookup.
Building one refuses what form mode must not send, once: a field that looks like it asks for
a secret (:class:`SecretInForm`) and a URL in a title, a description, an option or a default
(:class:`~mcp_elicit.server.errors.LinkInText`, ``wording``).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import typing
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import pydantic

from mcp_elicit.forms import (
    ConversionError,
    Form,
    NotSecret,
    Problem,
    SchemaBuildError,
    check_schema,
    convert,
    fields_of,
    lint_schema,
    schema_of,
)
from mcp_elicit.protocol import ContentItem
from mcp_elicit.revisions import LATEST
from mcp_elicit.server.errors import NotExpressible, SecretInForm
from mcp_elicit.server.wording import refuse_links_in_form

T = TypeVar("T")


@dataclass(eq=False)
class Question(Generic[T]):
    """One form: ``schema_for(revision)`` to send, ``form`` to validate, ``to_value`` to build
    the author's value from valid content."""

    title: str  # what the author asked for, in error messages
    _schema: Callable[[str], Mapping[str, Any]]
    form: Form
    to_value: Callable[[dict[str, Any]], T]
    _by_revision: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    from_items: Callable[[tuple[ContentItem, ...]], T | list[Problem]] | None = None
    """How an answer in the early draft's ``content`` items becomes a value (``ask_text``);
    ``None``: such an answer is an error naming the question."""

    def schema_for(self, revision: str) -> Mapping[str, Any]:
        """The schema in ``revision``'s shapes; :class:`NotExpressible` when it cannot say it."""
        try:
            return self._by_revision[revision]
        except KeyError:
            pass
        try:
            schema = self._schema(revision)
        except (ConversionError, SchemaBuildError) as exc:
            raise NotExpressible(
                f"{self.title} cannot be asked of a client speaking {revision}: {exc}",
                revision=revision,
            ) from exc
        self._by_revision[revision] = schema
        return schema


@functools.cache
def question_for_type(tp: Any) -> Question[Any]:
    """The question for a dataclass, TypedDict or pydantic model (cached per type).

    Raises ``SchemaBuildError`` for a type no revision can ask for, :class:`SecretInForm`
    for a field that looks like a secret and is not marked ``NotSecret``, and ``LinkInText``
    for a URL in a field's text.
    """
    name = getattr(tp, "__name__", repr(tp))
    latest = schema_of(tp, revision=LATEST)
    refuse_secrets(latest, allowed=_not_secret_fields(tp), where=name, markable=True)
    form = Form.from_schema(latest)
    refuse_links_in_form(form, where=name)
    adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(tp)
    fill = _needs_none(tp, [f.name for f in fields_of(tp) if not f.required])

    def to_value(content: dict[str, Any]) -> Any:
        return adapter.validate_python(dict.fromkeys(fill) | content)

    return Question(
        title=name,
        _schema=lambda revision: schema_of(tp, revision=revision),
        form=form,
        to_value=to_value,
    )


def question_for_schema(
    schema: Mapping[str, Any],
    to_value: Callable[[dict[str, Any]], T],
    *,
    title: str,
    where: str | None = None,
) -> Question[T]:
    """A question from a schema in the latest shapes (``confirm``, ``choose``); ``where``
    names its maker in an error (``"choose()"``)."""
    form = Form.from_schema(schema)
    refuse_links_in_form(form, where=where or title)
    return Question(
        title=title,
        _schema=lambda revision: convert(schema, to=revision),
        form=form,
        to_value=to_value,
    )


def question_for_raw_schema(schema: Mapping[str, Any]) -> Question[dict[str, Any]]:
    """A question from a hand-written ``requestedSchema`` (cached per schema). It is sent as it
    is to a revision that accepts it, converted for one that does not."""
    try:
        key = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"a requestedSchema must be JSON: {exc}") from exc

    def build() -> Question[dict[str, Any]]:
        frozen = copy.deepcopy(dict(schema))
        form = Form.from_schema(frozen)  # InvalidSchema if no revision accepts it
        refuse_secrets(frozen, allowed=(), where="requestedSchema", markable=False)
        refuse_links_in_form(form, where="requestedSchema")

        def in_revision(revision: str) -> Mapping[str, Any]:
            if not check_schema(frozen, revision=revision):
                return frozen
            return convert(frozen, to=revision)

        return Question(title="this question", _schema=in_revision, form=form, to_value=dict)

    return cached_question(key, build, cache=_RAW)


def cached_question(
    key: Hashable, build: Callable[[], Question[T]], *, cache: dict[Hashable, Question[Any]]
) -> Question[T]:
    """Look ``key`` up in a bounded cache, building it on a miss."""
    found = cache.get(key)
    if found is None:
        if len(cache) >= 1024:  # options built from data could grow it without bound
            cache.clear()
        found = cache[key] = build()
    return typing.cast(Question[T], found)


def refuse_secrets(
    schema: Mapping[str, Any], *, allowed: Sequence[str], where: str, markable: bool
) -> None:
    """Form mode must not ask for secrets: raise :class:`SecretInForm` naming the field.
    ``markable``: the field is a type's, which can be marked ``NotSecret`` (a hand-written
    ``requestedSchema`` has nowhere to say so)."""
    for problem in lint_schema(dict(schema)):
        if problem.code == "looks_secret" and problem.field not in allowed:
            if markable:
                otherwise = (
                    "If it is not a secret, mark the field "
                    "Annotated[..., mcp_elicit.forms.NotSecret()]."
                )
            else:
                otherwise = (
                    "If it is not a secret, ask with a dataclass or TypedDict and mark the "
                    "field Annotated[..., mcp_elicit.forms.NotSecret()], or rename it."
                )
            raise SecretInForm(
                f"{where}.{problem.field} looks like a secret, and form mode must not ask "
                "for passwords, tokens or API keys: a form's answer passes through the client. "
                f"Ask for it in URL mode with secret() or ask_url() instead. {otherwise}"
            )


def _not_secret_fields(tp: Any) -> tuple[str, ...]:
    try:
        hints = typing.get_type_hints(tp, include_extras=True)
    except Exception:  # an unresolvable annotation: schema_of has reported it already
        return ()
    return tuple(
        name
        for name, hint in hints.items()
        if typing.get_origin(hint) is typing.Annotated
        and any(isinstance(m, NotSecret) for m in typing.get_args(hint)[1:])
    )


def _needs_none(tp: Any, optional: Sequence[str]) -> tuple[str, ...]:
    """Optional form fields that ``tp`` still requires by name (``x: str | None`` with no
    default): an empty answer is passed to it as ``None``. Others are left out, so their own
    defaults apply."""
    if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
        required = {name for name, info in tp.model_fields.items() if info.is_required()}
    elif dataclasses.is_dataclass(tp):
        required = {
            f.name
            for f in dataclasses.fields(tp)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        }
    else:  # TypedDict
        required = set(getattr(tp, "__required_keys__", ()))
    return tuple(name for name in optional if name in required)


_RAW: dict[Hashable, Question[Any]] = {}

"""What the table waits for next, said once for every front end.

The game judges what is legal (``Game.expected``, ``Game.may_knock``); this module turns that
into what the front ends show and weigh: the sentence (``expecting``: the announcements, the
table's top line, ``status``, the phone page), the command line's hint (``hint_parts``), the
words a command may start with, the likeliest first (``first_words``), the verbs that may
follow a player's name (``expected_verbs``) and what Tab types on an empty line
(``expected_start``): the command line's completion; the start of each command with the
table's own names (``command_starts``: the palette's 'Type: ...' entries); and how likely each
intent is now (``intent_weights``: the speech grammar's JSGF weights and Whisper's). ``TableState``
carries the sentence, the hint, the first words and the weights, computed once per applied
command. No I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assistant.commands.grammar import TEMPLATES, TREES
from assistant.commands.intents import GAME_INTENTS, INTENTS
from assistant.commands.language import ENGLISH, Language, languages
from assistant.commands.parser import names_to_come
from assistant.commands.render import start
from assistant.commands.templates import Sentence, first_required_word
from assistant.i18n import _, current_language, format, ngettext
from assistant.i18n.words import names
from engine.actions import Action, Knock, Pass, SetStarter, Swap
from engine.game import Game, Phase
from engine.words import title

#: Meta commands: always possible, at a modest weight (the speech grammar's).
META_INTENTS = tuple(i.name for i in INTENTS if not i.game_action)


def expecting(game: Game | None) -> str:
    """What the referee waits for next, e.g. ``Bob's turn: swap or knock``, in the table's
    language (the example command in it stays the command language's)."""
    if game is None:
        return _("Start a game: new game, then 3 to 5 names.")
    expected = game.expected()
    turn = title(game.turn or "")
    match game.phase:
        case Phase.ROWS:
            return format(_("Round {n}: enter row {rows}."), n=game.round,
                          rows=", ".join(map(str, expected.rows)))
        case Phase.TURNS if SetStarter in expected.actions:
            return format(_("Who starts? e.g. '{example}'."), example="alice starts")
        case Phase.TURNS:
            if Knock in expected.actions:
                return format(_("{player}'s turn: swap or knock."), player=turn)
            return format(_("{player}'s turn: swap."), player=turn)
        case Phase.FINAL_TURNS:
            return format(_("{player}'s last turn: swap or pass."), player=turn)
        case Phase.REVEAL:
            return format(_("Reveal hands: waiting for {players}."), players=names(expected.players))
        case Phase.GAME_OVER:
            return format(ngettext("Game over: {players} won. '{command}' to play again.",
                                   "Game over: {players} won. '{command}' to play again.",
                                   len(game.winners)),
                          players=names(game.winners), command=new_game_words())
    return ""


#: The verb a turn action is typed with.
TURN_VERBS: dict[type[Action], str] = {Swap: "swaps", Knock: "knocks", Pass: "passes"}


def expected_verbs(game: Game | None, player: str) -> list[str]:
    """The verbs that may follow ``player``'s name now, the most likely first: the turn actions
    the game expects of them (``Game.expected``), "starts" before the first turn (to name or
    correct who starts), and "has" (a hand at the reveal, or sudden death at any moment)."""
    if game is None or game.phase is Phase.GAME_OVER or player not in game.alive:
        return []
    expected = game.expected()
    verbs = [TURN_VERBS[a] for a in expected.actions if a in TURN_VERBS] if player in expected.players else []
    if game.phase in (Phase.ROWS, Phase.TURNS) and not game.turns_played:
        verbs.append("starts")
    verbs.append("has")
    language = _table_language()
    if language.code == ENGLISH:
        return verbs
    # The table's language: the word its sentence of each intent has after the player's name.
    said = [_verb_after_player(language, _VERB_INTENTS[verb]) for verb in verbs]
    return list(dict.fromkeys(word for word in said if word))


#: The intent each English verb after a player's name starts.
_VERB_INTENTS = {"swaps": "swap", "knocks": "knock", "passes": "pass", "starts": "starts", "has": "hand"}


def _table_language() -> Language:
    """The command language of the table (``[table] language``): its words complete a line."""
    return languages(current_language())


def table_examples() -> Mapping[str, str]:
    """Each intent's example in the table's language, in help's order ('{p}' is a player):
    help's list of commands and the examples the table shows."""
    return _table_language().examples


def _verb_after_player(language: Language, intent: str) -> str | None:
    return next((w for tree in language.trees[intent]
                 if (w := first_required_word(tree, after_slot="player")) is not None), None)


def expected_start(game: Game | None) -> str:
    """What Tab types on an empty command line: the start of the command expected now."""
    language = _table_language()
    if language.code != ENGLISH:
        return _expected_start_in(language, game)
    if game is None or game.phase is Phase.GAME_OVER:
        return "new game "
    match game.phase:
        case Phase.ROWS:
            return f"row {game.missing_rows()[0]} "
        case Phase.TURNS if game.starter is None:
            return ""
        case Phase.TURNS | Phase.FINAL_TURNS:
            return f"{game.turn} " if game.turn else ""
        case Phase.REVEAL:
            waiting = game.waiting_to_declare()
            return f"{waiting[0]} has " if waiting else ""
    return ""


def _expected_start_in(language: Language, game: Game | None) -> str:
    """``expected_start`` in another language than English (``render.start``)."""
    if game is None or game.phase is Phase.GAME_OVER:
        return start("new_game", language)
    match game.phase:
        case Phase.ROWS:
            return start("row", language, row=game.missing_rows()[0])
        case Phase.TURNS | Phase.FINAL_TURNS if game.starter is not None and game.turn:
            return f"{game.turn} "
        case Phase.REVEAL if game.waiting_to_declare():
            return start("hand", language, player=game.waiting_to_declare()[0])
    return ""


def hint_parts(game: Game | None, question: str | None = None) -> list[str]:
    """The command line's hint, in parts, the one that matters first: what to type now with
    the table's own names; while a ``question`` waits, the answer it waits for. The sentences
    are the table's language, and so are the commands quoted in them (``row 2``, ``bob swaps``:
    ``_typed``)."""
    f2 = _("F2 help")
    if question:
        return [format(_("{yes} to go ahead, {no} to drop it"), yes=_typed("yes", "yes"),
                       no=_typed("no", "no")), f2]
    if game is None or game.phase is Phase.GAME_OVER:
        return [format(_("{command} and 3 to 5 names"), command=_typed("new_game", "new game")), f2]
    turn = game.turn or ""
    match game.phase:
        case Phase.ROWS:
            k = game.missing_rows()[0]
            row = _typed("row", f"row {k}", row=k)
            return [format(ngettext("{start} and its {k} animal", "{start} and its {k} animals", k),
                           start=row, k=k), _tab_types(row), f2]
        case Phase.TURNS if game.starter is None:
            first = game.alive[0]
            return [format(_("who starts, e.g. {example}"),
                           example=_typed("starts", f"{first} starts", player=first))]
        case Phase.TURNS:
            swap = format(_("{start} ROW and the cards put down"), start=_swap_start(turn))
            if game.may_knock(turn):
                swap = format(_("{swap} or {knock}"), swap=swap,
                              knock=_typed("knock", "knocks", player=turn))
            return [swap, _tab_types(turn)]
        case Phase.FINAL_TURNS:
            return [format(_("{start} ROW and the cards put down, or {pass_}"), start=_swap_start(turn),
                           pass_=_typed("pass", "passes", player=turn)), _tab_types(turn)]
        case Phase.REVEAL:
            waiting = game.waiting_to_declare()
            who = waiting[0] if waiting else ""
            has = _typed("hand", f"{who} has", player=who)
            return [format(_("the grid above, or '{start}' and the 10 cards"), start=has),
                    _tab_types(has)]
    return [f2]


def new_game_words() -> str:
    """The words that start a new game as this table types them, without names (the table
    asks for them): 'new game', 'neues Spiel' (its start, 'neues Spiel mit', wants a name
    next); a game-over line said the English 'new game' at a German table."""
    language = _table_language()
    if language.code == ENGLISH:
        return "new game"
    words = start("new_game", language).split()
    return next((" ".join(words[:k]) for k in range(1, len(words))
                 if names_to_come(" ".join(words[:k]), language)), " ".join(words))


def _typed(intent: str, english: str, **given: object) -> str:
    """A command (or its start) as it is typed at this table: ``english`` at an English table,
    else the table language's own words (``render.start``)."""
    language = _table_language()
    return english if language.code == ENGLISH else start(intent, language, **given).strip()


def _swap_start(turn: str) -> str:
    """``bob swaps``: a swap's start before its row, in the table's language ("bob tauscht";
    the row's own word, which the hint's ROW stands for, left out)."""
    language = _table_language()
    if language.code == ENGLISH:
        return f"{turn} swaps"
    words = start("swap", language, player=turn).strip()
    row_word = start("row", language).strip()
    if row_word and words.endswith(" " + row_word):
        words = words[: -len(row_word) - 1]
    return words


def _tab_types(start: str) -> str:
    """``Tab types 'row 2'``: what the Tab key types on an empty command line."""
    return format(_("Tab types '{start}'"), start=start)


def _start_words(trees_of: Mapping[str, tuple[Sentence, ...]] = TREES) -> frozenset[str]:
    """The words that may start a command, from the grammar: each template's first required
    word, unless it starts with a player's name."""
    starters: set[str] = set()
    for trees in trees_of.values():
        for tree in trees:
            if first_required_word(tree, after_slot="player") is None and \
                    (first := first_required_word(tree)) is not None:
                starters.add(first)
    return frozenset(starters)


#: The words that may start a command (``new``, ``row``, ``undo``, ...), from the templates.
START_WORDS = _start_words()


def first_words(game: Game | None) -> list[str]:
    """A command's first word: most likely 'row' while rows are missing, the player whose turn
    it is, the players still to declare at the reveal; then the other living players, then the
    words that start a command."""
    alive = list(game.alive) if game is not None and not game.is_over else []
    language = _table_language()
    first: list[str] = []
    if game is not None and game.phase is Phase.ROWS:
        row = "row" if language.code == ENGLISH else _first_word(language, "row")
        first.extend([row] if row else [])
    if game is not None and game.turn:
        first.append(game.turn)
    if game is not None and game.phase is Phase.REVEAL:
        first.extend(game.waiting_to_declare())
    starters = START_WORDS if language.code == ENGLISH else _start_words(language.trees)
    return first + [p for p in alive if p not in first] + sorted(starters - set(first))


def _first_word(language: Language, intent: str) -> str | None:
    """The first word of ``intent``'s first sentence in ``language`` ('reihe'), if it starts
    with a word."""
    return first_required_word(language.trees[intent][0])


def intent_weights(players: Sequence[str], game: Game | None) -> dict[str, float]:
    """How likely each intent is now; 0 leaves it out of the speech grammar."""
    w: dict[str, float] = dict.fromkeys(TEMPLATES, 0.0)
    for meta in META_INTENTS:
        w[meta] = 0.5
    w["undo"] = w["no"] = 1.0
    if players:
        w["new_game"] = 0.2  # the same players again, in seating order
    if game is None:
        if players:  # players known but no game state (``lifeguard hear --players``): any command
            for intent in GAME_INTENTS:
                w[intent] = 1.0
            w["sudden_death"] = 0.3
        return w
    w.update(phase_weights(game))
    return w


def phase_weights(game: Game) -> dict[str, float]:
    """The game's intents, weighted by its phase (and whose turn it is)."""
    phase = game.phase
    w: dict[str, float] = {}
    if phase in (Phase.ROWS, Phase.TURNS, Phase.FINAL_TURNS, Phase.REVEAL):
        w["sudden_death"] = 0.3
    if phase is Phase.ROWS:
        w["row"] = 4.0
        w["starts"] = 1.0 if game.starter is None else 0.2
    elif phase is Phase.TURNS:
        w["swap"] = 4.0
        # The game judges whether the turn player may knock; a knock it would refuse stays
        # hearable (so its refusal is said), only less likely.
        w["knock"] = 1.5 if game.may_knock(game.turn or "") else 0.5
        w["row"] = 0.2  # correcting a row
        w["starts"] = 1.0 if game.starter is None else 0.0
    elif phase is Phase.FINAL_TURNS:
        w["swap"] = 3.0
        w["pass"] = 2.0
        w["knock"] = 0.5  # knocking again counts as a pass
    elif phase is Phase.REVEAL:
        w["hand"] = 4.0
    elif phase is Phase.GAME_OVER:
        w["new_game"] = 2.0
        w["status"] = 1.0
    return w


def command_starts(game: Game | None) -> dict[str, tuple[str, str]]:
    """The palette's 'Type: ...' entries: per intent, the start of the command with the table's
    own names (the player whose turn it is, the row still missing) and what to add after it;
    never a whole example that could be sent as it stands."""
    alive = game.alive if game is not None and not game.is_over else ()
    turn = (game.turn if game is not None else None) or (alive[0] if alive else "NAME")
    row = game.missing_rows()[0] if game is not None and game.missing_rows() else 1
    waiting = game.waiting_to_declare() if game is not None and game.phase is Phase.REVEAL else ()
    hand = waiting[0] if waiting else turn
    starts = {
        "new_game": ("new game ", _("then 3 to 5 names in seating order")),
        "row": (f"row {row} ", format(ngettext("then the {n} animal of row {row}",
                                               "then the {n} animals of row {row}", row), n=row, row=row)),
        "starts": (f"{turn} starts", _("the round's start player, before the first turn")),
        "swap": (f"{turn} swaps ", _("then the row and the cards put down")),
        "knock": (f"{turn} knocks", _("end the round: one last turn for the others")),
        "pass": (f"{turn} passes", _("a last turn without a swap")),
        "hand": (f"{hand} has ", _("then the 10 cards of the hand")),
        "sudden_death": (f"{turn} has all ", _("then cats, rabbits or pigs")),
        "undo": ("undo", _("take back the last command")),
        "redo": ("redo", _("apply the undone command again")),
        "status": ("status", _("where the game stands")),
    }
    language = _table_language()
    return starts if language.code == ENGLISH else _starts_in(language, starts, turn, row, hand)


#: The palette's entries, in the order ``command_starts`` gives them, with the fields each
#: start names: (intent, names the turn player, names the row, names the player to declare).
_STARTS = (("new_game", False, False, False), ("row", False, True, False), ("starts", True, False, False),
           ("swap", True, False, False), ("knock", True, False, False), ("pass", True, False, False),
           ("hand", False, False, True), ("sudden_death", True, False, False), ("undo", False, False, False),
           ("redo", False, False, False), ("status", False, False, False))


def _starts_in(
    language: Language, english: Mapping[str, tuple[str, str]], turn: str, row: int, hand: str
) -> dict[str, tuple[str, str]]:
    """``command_starts`` in another language than English: each start written by the
    renderer (``render.start``) in the table's words, what to add after it as ``english`` says."""
    starts: dict[str, tuple[str, str]] = {}
    for intent, names_turn, names_row, names_hand in _STARTS:
        given: dict[str, object] = {"player": turn} if names_turn else {"player": hand} if names_hand else {}
        if names_row:
            given["row"] = row
        starts[intent] = (start(intent, language, **given), english[intent][1])
    return starts


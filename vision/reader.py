"""The thin orchestrator: photo -> :class:`~vision.reading.BoardReading`, timing each stage.

Stages (their ms are in ``BoardReading.stage_ms``): ``find`` (locate the board and which
side is up, :func:`vision.board.find_board`), ``rectify`` (the playing grid top-down,
:func:`vision.board.rectify_grid`), ``orient`` (only on a board its own features leave
the same every way up: the turn its tokens lie upright at, :func:`_upright_turn`) and
``cells`` (every cell read,
:func:`vision.tiles.read_cells`; its own steps are ``cells.net`` (the cell net,
:mod:`vision.cellnet`: the tiles it is sure of the glyph reader need not cut nor
classify, and its reading is weighed with the glyph reading), ``cells.stats``,
``cells.segment``, ``cells.classify`` and, only where the glyph reader's doubt stands
against the net's other answer, ``cells.tesseract``).

    reading = read_board(cv2.imread("photo.jpg"), "mixmath")
    print(reading.dumps())
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from . import cellnet, tiles
from .reading import UNSURE_BELOW, BoardReading

PX_PER_CELL = 64
"""Rectified cell side the cell reader works at (digits ~25 px tall)."""


def _tiles_config(config: Any) -> tiles.TilesConfig | None:
    """A TilesConfig, or the ``tiles`` part of a VisionConfig, or None (defaults)."""
    if config is None or isinstance(config, tiles.TilesConfig):
        return config
    return getattr(config, "tiles", None)


def _board_config(config: Any):
    return getattr(config, "board", None) if config is not None else None


def _profile_object(profile: Any, location) -> Any:
    """The BoardProfile the cell reader should use: the one given (object or name), else
    the one the board finder matched, else None."""
    from calibration.profiles import load_profile
    if profile is False:
        return None
    if isinstance(profile, str):
        return load_profile(profile)
    if profile is not None:
        return profile
    name = getattr(location, "profile", None)
    if name:
        try:
            return load_profile(name)
        except KeyError:
            return None
    return None


def _lead(scores: np.ndarray) -> float:
    """How far the best score leads the next."""
    return float(np.diff(np.sort(scores)[-2:])[0])


def _upright_turn(grid: np.ndarray, game: str, stats, view, cfg: tiles.TilesConfig
                  ) -> tuple[int, bool]:
    """The quarter turn (``np.rot90`` k) that stands the tiles upright on a board whose own
    features leave it open, and whether it is sure: the turn net's vote where it leads
    clearly, else the net and the tiles' glyphs read under each turn weighed together
    (``turn_glyph_weight``), sure when the best leads the next by ``turn_joint_margin``
    and the net does not lean a quarter turn away (by ``turnnet_dissent``). Each alone
    turns boards wrong the other turns right: on a blurred board the glyphs may lead a
    wrong turn as far as a right one (blots at 12 MP: the net, leaning a quarter turn
    away, was right), and the net, too unsure to settle the turn alone, leans half a turn
    wrong on boards of tokens that read alike upside down (0, 1, 8, the signs, 6 and 9
    unmarked): the glyphs must also lead the turn half a turn away by
    ``turn_half_margin`` (a board of two tokens, + and ÷, the glyphs indifferent, the net
    leaning half a turn wrong, was read upside down surely). On 900 development
    Calculissimo renders the two weighed together turned 2 boards wrong, both shown to
    check, where the glyphs alone (the net's quarter-turn dissent as now) turned 7 wrong;
    on 299 others, 1 as before, and 3 right boards shown to check where they showed 5.

    A game without a turn net (Mixmath, whose printed numbers mostly settle it) goes by
    the glyphs alone, sure when they lead the next turn by ``upright_margin`` and read at
    least ``upright_floor`` well under it (faint or blurred ink reads badly every way up,
    and its lead is noise)."""
    rows, cols = stats.face_grey.shape
    turns = [0, 1, 2, 3] if rows == cols else [0, 2]
    by_net = None
    if view is not None:
        clearest = tiles.clearest_tiles(stats, tiles.square_kinds_of(game, rows, cols), cfg)
        by_net = cellnet.turn_scores(view, game, clearest)
        if by_net is not None:
            by_net = by_net[turns]
            if _lead(by_net) >= cfg.turnnet_lead:
                return turns[int(np.argmax(by_net))], True
    scores = tiles.upright_scores(grid, game, stats, tuple(turns), cfg)
    if by_net is None:
        return (turns[int(np.argmax(scores))],
                _lead(scores) >= cfg.upright_margin and scores.max() >= cfg.upright_floor)
    joint = by_net + cfg.turn_glyph_weight * scores
    i = int(np.argmax(joint))
    best, half = turns[i], turns.index((turns[i] + 2) % 4)
    dissent = (_lead(by_net) >= cfg.turnnet_dissent
               and (turns[int(np.argmax(by_net))] - best) % 2 == 1)
    # the net's lean half a turn says little (tokens that read alike upside down): the
    # glyphs must tell the turn from its half turn
    told = scores[i] - scores[half] >= cfg.turn_half_margin
    return best, _lead(joint) >= cfg.turn_joint_margin and told and not dissent


def in_context(view: cellnet.BoardView, game: str, stats: tiles.CellStats,
               cfg: tiles.TilesConfig) -> cellnet.BoardView:
    """The net's view of the board beside this photo's empty square and inked tile
    (:func:`vision.cellnet.context_of`): its plain squares, and those of them with ink
    on a tile-like face (``stats``: the grid's :func:`vision.tiles.cell_stats`)."""
    plain = tiles.square_kinds_of(game, view.rows, view.cols) == "plain"
    return view.in_context(plain, tiles.tile_candidates(stats, cfg) & plain)


def _doubt_poor_photo(confidence: np.ndarray, occluded: np.ndarray,
                      cfg: tiles.TilesConfig) -> None:
    """Scale every confidence (changed in place) by ``cfg.conf_doubtful_photo`` when at
    least ``cfg.doubtful_photo`` of the cells the photo shows (not ``occluded``) read
    unsure: then the photo is poor as a whole, and its other readings are not sure either
    (:meth:`BoardReading.is_doubtful` then).

    A photo blurred by motion (a camera or a hand moving) smears every glyph along one
    direction, which neither reader has seen: some tiles read wrong yet sure, beside many
    read unsure. Development renders smeared 6-18 px at 1080p: of the cells read sure on
    the photos with a fifth or more unsure, up to a quarter were wrong; clean tier-2 photos
    reach a fifth unsure on 1.7 % (Mixmath) and 1.3 % (Calculissimo), mostly with cells
    wrong already (docs/vision-log.md, session 51).

    >>> conf = np.array([[1.0, 0.95, 0.5, 1.0, 1.0]])
    >>> _doubt_poor_photo(conf, np.zeros((1, 5), bool), tiles.TilesConfig())
    >>> conf.tolist()
    [[0.5, 0.475, 0.25, 0.5, 0.5]]
    >>> conf = np.array([[1.0, 0.95, 0.5, 1.0, 1.0]])
    >>> _doubt_poor_photo(conf, np.array([[0, 0, 1, 0, 0]], bool), tiles.TilesConfig())
    >>> conf.tolist()
    [[1.0, 0.95, 0.5, 1.0, 1.0]]
    """
    share = cfg.doubtful_photo
    seen = ~occluded
    if share is not None and seen.any() and np.mean(confidence[seen] < UNSURE_BELOW) >= share:
        confidence *= cfg.conf_doubtful_photo


def _disputed(glyph_cells: list[list], fused_cells: list[list], net_says: np.ndarray
              ) -> np.ndarray:
    """(rows, cols) bool: the cells where the glyph reading stood against the net's other
    answer. Only there is Tesseract, a tie-break, asked about the glyph reader's doubts:
    where the net's answer was taken, or agreed, it mostly turned it wrong.

    >>> _disputed([[12, 7, None]], [[12, 1, None]], np.array([[30, 1, None]], dtype=object))
    array([[ True, False, False]])
    """
    glyph, fused = np.array(glyph_cells, dtype=object), np.array(fused_cells, dtype=object)
    return (glyph == fused) & (fused != net_says)


def weigh(cells: list[list], confidence: np.ndarray, leave: np.ndarray, probs: np.ndarray,
          sides: np.ndarray, game: str, cfg: tiles.TilesConfig,
          glare: np.ndarray | None = None, inked_jokers: bool = False,
          scores: dict | None = None, pairs: np.ndarray | None = None) -> np.ndarray:
    """The glyph reading (``cells``, ``confidence``: changed in place) weighed with the
    net's ``probs`` under ``cfg``'s rules: the sides' veto on the net's jokers
    (:func:`vision.cellnet.bare_of_jokers`; a net taught its set's blanks is vetoed on
    barer sides only, and a joker of its let through is shown to check), then
    :func:`vision.cellnet.fuse` (``sides``:
    ``GridRead.sides_like``, ``glare``: ``GridRead.glare``; ``inked_jokers``: the set's
    jokers wear a star, boardsight's print-and-play; ``scores``: the glyph reader's odds,
    {cell: {value: probability}}; ``pairs``: its numbers read from two digits side by
    side, :func:`vision.tiles.side_by_side`), then the net's doubt where a tile
    may lie unseen (:func:`vision.cellnet.doubt_the_unseen`). Returns the
    probabilities as weighed, which :func:`hold_to_play` then goes on. (``bench.fusion`` replays
    the reading's weighing through this.)"""
    classes = cellnet.CLASSES[game]
    seen = probs   # the net's own answer: the veto changes the choice, not its doubt
    bare = cfg.cellnet_bare_sides
    if bare is not None:
        veto = dict(cfg.cellnet_bare_sides_taught).get(game, bare)
        probs = cellnet.bare_of_jokers(probs, classes, sides, cells, veto)
        with np.errstate(invalid="ignore"):
            doubted = (np.array(cells, dtype=object) != "?") & (sides < bare)
    cellnet.fuse(cells, confidence, leave, probs, classes, cfg.weighing,
                 blanks=tiles.blank_tiles_of(game), sides=sides, glare=glare,
                 inked_jokers=inked_jokers, sees_blanks=cellnet.sees_blanks(game),
                 scores=scores, pairs=pairs)
    if bare is not None:   # a joker the sides speak against, let through: shown to check
        doubted &= np.array(cells, dtype=object) == "?"
        confidence[doubted] = np.minimum(confidence[doubted], cfg.conf_bare_joker)
    cellnet.doubt_the_unseen(cells, confidence, leave, seen, classes, glare,
                             cfg.cellnet_glared_empty_odds)
    return probs


class JudgeView:
    """The judges' view of a board (:func:`vision.cellnet.judge_view`: its rectified grid
    scaled to their cell, beside its plain squares and the inked tiles read on them),
    made when a judge is first asked and shared by the judges after."""

    def __init__(self, grid_bgr: np.ndarray, cells: list[list], game: str):
        self.grid, self.cells, self.game = grid_bgr, cells, game
        self._view = None

    def __call__(self) -> tuple:
        if self._view is None:
            read = np.array(self.cells, dtype=object)
            rows, cols = read.shape
            plain = tiles.square_kinds_of(self.game, rows, cols) == "plain"
            inked = ~(read == "?") & ~(read == None) & plain  # noqa: E711 (elementwise)
            self._view = cellnet.judge_view(cellnet.judge_padded(self.grid, rows, cols),
                                            rows, cols, plain, inked)
        return self._view


def _judged(judge: cellnet.Judge, view: JudgeView, asked: np.ndarray, cells: list[list],
            confidence: np.ndarray, probs: np.ndarray, game: str, sure: float,
            conf_judged: float, *, dissent: bool, within_set: bool = False
            ) -> np.ndarray:
    """``judge``'s word on the ``asked`` cells ((rows, cols) bool): where its likeliest
    class has odds of at least 1 - ``sure`` and differs from the reading, it is taken
    (``cells``, ``confidence``: changed in place), shown to check (at most
    ``conf_judged``: the readers said otherwise); where it agrees, the reading stands as
    it was; where it leans another way, too unsure to overrule (or held back by the set's
    counts), the reading stands, shown to check (with ``dissent``: at most
    ``conf_judged``; development tier-2 renders, 1 500 photos: 6 cells read wrong yet
    sure, 20 right ones, so shown). Returns the weighed probabilities with the judge's
    odds put in, on the cells it overruled, among its classes (:func:`hold_to_play` goes
    on them)."""
    if not asked.any():
        return probs
    odds = cellnet.judge_odds(judge, view(), asked)
    if odds is None:
        return probs
    r, c = np.nonzero(asked)
    best = odds.argmax(1)
    says = np.array(judge.classes, dtype=object)[best]
    read = np.array(cells, dtype=object)
    differs = says != read[r, c]
    if dissent:
        confidence[r[differs], c[differs]] = np.minimum(confidence[r[differs], c[differs]],
                                                        conf_judged)
    over = (odds[np.arange(len(best)), best] >= 1 - sure) & differs
    # more of a value than the set has: the judge sees this set's face of it wrong (a
    # font whose ÷ has its dots on its bar, all taken for +), not one tile
    counts = tiles.tile_counts_of(game) if within_set else {}
    for value in set(says[over]) & set(counts):
        if (read == value).sum() + (over & (says == value)).sum() > counts[value]:
            over &= says != value
    r, c, odds, says = r[over], c[over], odds[over], says[over]
    for row, col, value in zip(r, c, says):
        cells[row][col] = value
    confidence[r, c] = np.minimum(odds.max(1), conf_judged)
    probs = probs.copy()
    at = [cellnet.CLASSES[game].index(v) for v in judge.classes]
    either = probs[r[:, None], c[:, None], at].sum(1, keepdims=True)
    probs[r[:, None], c[:, None], at] = odds * either
    return probs


def judge_blanks(view: JudgeView, cells: list[list], confidence: np.ndarray,
                 leave: np.ndarray, net_probs: np.ndarray, probs: np.ndarray, game: str,
                 cfg: tiles.TilesConfig) -> np.ndarray:
    """The blank judge's word (:data:`vision.cellnet.BLANK_JUDGE`, :func:`_judged`) on the
    cells the weighing left empty or took for a bare blank where the net gave a blank at
    least ``cfg.blank_judge_from`` (``net_probs``: its own, before the weighing), taken
    where it is sure within ``cfg.blank_judge_sure`` and says otherwise.

    Development tier-2 renders (1080p, held-out fonts, no hand; the judge's renders are
    other seeds): Mixmath 464 -> 478 of 509 photos all right, photos with a sure miss 3 ->
    0; Calculissimo 311 -> 314 of 337, 9 -> 8; tier 1 (print-and-play: not asked) and
    the 22 real Mathable photos as before."""
    if cfg.blank_judge_from is None:
        return probs
    blank = cellnet.CLASSES[game].index("?")
    read = np.array(cells, dtype=object)
    asked = ((read == "?") | (read == None)) & ~leave  # noqa: E711 (elementwise)
    asked &= (net_probs[..., blank] >= cfg.blank_judge_from) | (read == "?")
    return _judged(cellnet.BLANK_JUDGE, view, asked, cells, confidence, probs, game,
                   cfg.blank_judge_sure, cfg.conf_blank_judged, dissent=cfg.judge_dissent)


def judge_signs(view: JudgeView, cells: list[list], confidence: np.ndarray,
                leave: np.ndarray, probs: np.ndarray, game: str,
                cfg: tiles.TilesConfig) -> np.ndarray:
    """The sign judge's word (:data:`vision.cellnet.SIGN_JUDGE`, :func:`_judged`) on the
    cells read as an operator (+ − × ÷: on a small blurred board a ÷'s dots melt into its
    bar, and the readers take it for a + or a −) less surely than
    ``cfg.sign_judge_below`` (a sign read surely it never put right on development
    renders, and asking only the others saves most of its cost), taken where it is sure
    within ``cfg.sign_judge_sure`` and says another sign, unless that makes more of the
    sign than the set has. Only on the boards of a game it learnt.

    Development tier-2 Calculissimo renders (1080p, held-out fonts, no hand; its renders
    are other seeds and fonts): 314 -> 317 of 348 photos all right, 8 wrong cells fewer,
    none more; +1 % read time (asked about every sign: +6.5 %, the same readings)."""
    judge = cellnet.SIGN_JUDGE
    if cfg.sign_judge_sure is None or game not in judge.seeds:
        return probs
    asked = np.array([[v in judge.classes for v in row] for row in cells]) & ~leave
    asked &= confidence < cfg.sign_judge_below
    return _judged(judge, view, asked, cells, confidence, probs, game, cfg.sign_judge_sure,
                   cfg.conf_sign_judged, within_set=True, dissent=cfg.judge_dissent)


def hold_to_play(cells: list[list], confidence: np.ndarray, probs: np.ndarray, game: str,
                 cfg: tiles.TilesConfig, hidden: np.ndarray, scores: dict | None = None
                 ) -> None:
    """The weighed reading (``cells``, ``confidence``: changed in place; ``probs`` as
    :func:`weigh` returns them) held to what every board in play obeys, as ``cfg`` has it:
    no more tiles of a value than the set has (:func:`vision.cellnet.keep_to_set`), and
    the tiles one group reaching the centre (:func:`vision.cellnet.keep_connected`;
    ``hidden``: cells a hand hides or the photo cuts off, which may hold tiles).
    (``bench.fusion`` replays it after the weighing.)"""
    classes = cellnet.CLASSES[game]
    if cfg.cellnet_set_counts:
        cellnet.keep_to_set(cells, confidence, probs, classes, tiles.tile_counts_of(game),
                            scores if game in cfg.set_counts_by_both else None)
    if cfg.cellnet_connected:
        anchors, printed = tiles.centre_of_play(game, len(cells), len(cells[0]))
        cellnet.keep_connected(cells, confidence, probs, classes, anchors, printed | hidden,
                               UNSURE_BELOW, blanks=tiles.blank_tiles_of(game))


def read_board(image_bgr: np.ndarray, game: str, *, profile: Any = None,
               config: Any = None) -> BoardReading:
    """Read a photo of a Mixmath or Calculissimo board.

    Parameters
    ----------
    image_bgr : (H, W, 3) uint8 ndarray
    game : "mixmath" or "calculissimo"
    profile : board profile name, path, ``BoardProfile``, False (none), or None (the one
        the board finder recognises, if any)
    config : ``vision.config.VisionConfig`` (its ``board`` and ``tiles`` parts) or a
        ``TilesConfig``

    Raises
    ------
    vision.board.BoardNotFound
        No board of ``game`` in the picture.
    """
    from . import board

    t0 = time.perf_counter()
    stage_ms: dict[str, float] = {}
    find_kw = {"config": _board_config(config)}
    if profile is not None and not isinstance(profile, str) and profile is not False:
        find_kw["profile"] = profile
    elif isinstance(profile, str) or profile is False:
        find_kw["profile"] = profile
    location = board.find_board(image_bgr, game, **find_kw)
    stage_ms["find"] = (time.perf_counter() - t0) * 1000
    return read_located(image_bgr, game, location, profile=profile, config=config,
                        stage_ms=stage_ms, t0=t0)


def read_located(image_bgr: np.ndarray, game: str, location, *, profile: Any = None,
                 config: Any = None, stage_ms: dict | None = None,
                 t0: float | None = None, trace: dict | None = None) -> BoardReading:
    """Read the cells of a board already found (``location``, a
    :class:`vision.board.BoardLocation`): the rest of :func:`read_board` after ``find``
    (``bench.cells`` reads with the true location this way). ``stage_ms`` and ``t0``
    carry on the timing of a read that began earlier. ``trace`` (a dict) receives what
    the glyph reader and the net said before they were weighed (``bench.fusion`` replays
    the weighing): ``glyph_cells``, ``glyph_confidence``, ``leave``, ``probs``,
    ``probs_once`` (the net's, without its second look), ``sides``
    (``GridRead.sides_like``), ``glare`` (``GridRead.glare``), ``inked_jokers``
    (:func:`weigh`), ``occluded`` (``GridRead.occluded``), ``glyph_scores`` ({cell:
    {value: probability}} of the tiles the glyph classifier read) and ``pairs``
    (:func:`vision.tiles.side_by_side`)."""
    from . import board

    t0 = time.perf_counter() if t0 is None else t0
    stage_ms = {} if stage_ms is None else stage_ms
    t1 = time.perf_counter()
    grid = board.rectify_grid(image_bgr, location, PX_PER_CELL)
    t2 = time.perf_counter()
    stage_ms["rectify"] = (t2 - t1) * 1000
    g = location.geometry
    tiles_cfg = _tiles_config(config) or tiles.TilesConfig()
    kw = dict(profile=_profile_object(profile, location), config=tiles_cfg,
              shape=(g.rows, g.cols), timings=stage_ms, tesseract=False,
              # print-and-play sets are boardsight's own: their jokers and blanks wear a star
              inked_jokers=location.method == "markers")
    turned_unsure = False
    stats = None
    view = cellnet.BoardView.of(image_bgr, location) if tiles_cfg.use_cellnet else None
    t3 = time.perf_counter()
    view_ms = (t3 - t2) * 1000
    if not location.orientation_certain:
        # the board's own features left its turn open: the tiles lie upright on it
        stats = tiles.cell_stats(grid, g.rows, g.cols, tiles_cfg)
        turn, turn_sure = _upright_turn(grid, game, stats, view, tiles_cfg)
        if turn:
            location = location.rotated(turn)
            grid = tiles.turned(grid, turn)
            stats = stats.rotated(turn)
            view = view.turned(turn) if view is not None else None
        # a few symmetric tiles (0, 1, 8, +, x) read alike every way up, or blurred tiles
        # read as well turned as not: say so
        turned_unsure = not turn_sure
        stage_ms["orient"] = (time.perf_counter() - t3) * 1000
    # the net first: the glyph reader need not cut nor classify the tiles it is sure of
    probs, known, classes = None, None, cellnet.CLASSES.get(game)
    calibrated = getattr(kw["profile"], "glyphs", None) is not None
    if view is not None:
        t4 = time.perf_counter()
        net = cellnet.load(game)
        if net is not None and net.reads_context:
            if stats is None:
                stats = tiles.cell_stats(grid, g.rows, g.cols, tiles_cfg)
            view = in_context(view, game, stats, tiles_cfg)
        probs_once = probs = cellnet.read_probabilities(view, game)
        if probs is not None and tiles_cfg.cellnet_look_again is not None:
            probs = cellnet.second_look(view, game, probs, tiles_cfg.cellnet_look_again)
        if probs is not None and not calibrated:
            known = cellnet.sure_values(probs, classes, tiles_cfg.cellnet_sure)
        stage_ms["cells.net"] = view_ms + (time.perf_counter() - t4) * 1000
    # the cells a photo cuts off are not seen (the warp shows black there), not empty
    read = tiles.read_grid(grid, game, **kw, stats=stats, known=known,
                           unseen=~location.cells_in_picture(image_bgr.shape[1::-1]))
    glyphs_unsure = read.confidence < tiles_cfg.unsure_below
    # a set calibrated by its colours whose tiles wear another face is read as any own set
    calibrated &= read.own_font
    if probs is not None:   # before Tesseract: what the net settles it need not
        glyph_cells = [row[:] for row in read.cells]
        glyph_scores = {cg.cell: scores for cg, scores in read.reads}
        pairs = tiles.side_by_side(read.reads, (g.rows, g.cols))
        leave = read.occluded.copy()
        # a calibrated set's font was learned by the glyph reader, never seen by the net:
        # there the net only settles what the glyph reader is unsure of
        if calibrated:
            sure = read.confidence >= tiles_cfg.cellnet_doubt
            if tiles_cfg.cellnet_on_glyphless:
                # ... and a tile it cut no glyph from (its ink faint under a glare): a
                # rejected candidate's confidence is no reading of its own
                sure &= ~(read.is_tile & ~read.blank & ~cellnet.held(read.cells))
            leave |= sure
        if trace is not None:
            trace.update(glyph_cells=glyph_cells, glyph_confidence=read.confidence.copy(),
                         leave=leave.copy(), probs=probs, probs_once=probs_once,
                         sides=read.sides_like, glare=read.glare,
                         inked_jokers=kw["inked_jokers"], occluded=read.occluded.copy(),
                         glyph_scores=glyph_scores, pairs=pairs)
        net_probs = probs
        probs = weigh(read.cells, read.confidence, leave, probs, read.sides_like, game,
                      tiles_cfg, read.glare, kw["inked_jokers"], glyph_scores, pairs)
        if not kw["inked_jokers"]:   # own sets (a print-and-play blank wears a star)
            view = JudgeView(grid, read.cells, game)
            probs = judge_blanks(view, read.cells, read.confidence, leave, net_probs, probs,
                                 game, tiles_cfg)
            probs = judge_signs(view, read.cells, read.confidence, leave, probs, game,
                                tiles_cfg)
        glyphs_unsure &= _disputed(glyph_cells, read.cells,
                                   np.array(classes, dtype=object)[probs.argmax(-1)])
    if tiles_cfg.use_tesseract:   # a tie-break for the glyph reader's doubts alone
        t4 = time.perf_counter()
        tiles.settle_unsure(grid, read, game, tiles_cfg, among=glyphs_unsure)
        stage_ms["cells.tesseract"] = (time.perf_counter() - t4) * 1000
    # a number the board prints is no tile
    tiles.unprinted(read.cells, read.confidence, game, tiles_cfg.conf_rejected_candidate)
    if probs is not None:
        hold_to_play(read.cells, read.confidence, probs, game, tiles_cfg, read.occluded,
                     glyph_scores)
    if probs is not None and calibrated:
        # the net may not overrule a calibrated set's sure readings (``leave``), but its
        # agreement counts: as sure as the surer of the two (a square's own print, mostly)
        agree = leave & ~read.occluded & (np.array(read.cells, dtype=object)
                                          == np.array(classes, dtype=object)[probs.argmax(-1)])
        read.confidence[agree] = np.maximum(read.confidence[agree], probs.max(-1)[agree])
    # an empty square a glare clipped white may hide a tile whose ink it clipped too:
    # neither reader can tell, the players can ("check this cell")
    holds = cellnet.held(read.cells)
    hidden = read.blinded & ~holds
    read.confidence[hidden] = np.minimum(read.confidence[hidden], tiles_cfg.conf_blinded)
    _doubt_poor_photo(read.confidence, read.occluded, tiles_cfg)
    if turned_unsure:   # a doubt about the board, not about any glyph: after Tesseract
        # ... and about the squares its tiles, and the squares it read bare but shows to
        # check (a tile may lie there), would lie on were the board turned
        maybe = holds | (read.confidence < UNSURE_BELOW)
        doubt = maybe.copy()
        for k in ((1, 2, 3) if g.rows == g.cols else (2,)):
            doubt |= np.rot90(maybe, k)
        read.confidence[doubt] *= tiles_cfg.conf_turn_unsure
    t5 = time.perf_counter()
    stage_ms["cells"] = (t5 - t2) * 1000
    occluded = [(int(r), int(c)) for r, c in np.argwhere(read.occluded)]
    return BoardReading(game, g.rows, g.cols, read.cells, read.confidence, location.corners,
                        occluded=occluded, grid_corners=location.grid_corners,
                        ms=(t5 - t0) * 1000, stage_ms=stage_ms)

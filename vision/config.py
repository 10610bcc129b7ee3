"""The tunables of vision, one frozen dataclass per stage.

Every threshold a vision stage uses is named here, with the reason for its value, so that
none is left as a bare number in the code and a bench can try others with
``dataclasses.replace``. Each stage receives only its own part::

    cfg = VisionConfig()
    find_board(image, "mixmath", config=cfg.board)

Sizes marked *cells* are fractions of one grid cell (scale-free); sizes in *px* are pixels
of the downscaled working copy unless said otherwise.

>>> BoardConfig().work_long_side
1024
>>> from dataclasses import replace
>>> replace(BoardConfig(), refine_passes=1).refine_passes
1
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class BoardConfig:
    """Tunables of :func:`vision.board.find_board` (locate, refine, orient)."""

    # -- locating: a downscaled grey copy of the photo
    work_long_side: int = 1024
    """px: the photo is located on the halving (1/2, 1/4, ...) whose long side is nearest
    this (a 12 MP photo shrinks 4x, 1080p 2x, 720p not at all); cells of the smallest
    allowed board (24 px at full size) stay >= 12 px."""
    locate_levels: int = 2
    """Copies the board is looked for on: the working one, then (when the grid there was
    doubtful) the next larger halving: thin printed lines merge squares at low resolution."""
    local_window: float = 0.08
    """Fraction of the copy's short side: the box over which 'locally dark' is judged; at
    least one cell plus its lines at every allowed board size."""
    dark_offset: float = 10.0
    """Grey levels below the local mean that make a pixel 'dark' (a gap, a margin)."""
    valley_kernel_px: int = 5
    """px: black-hat kernel; thin dark lines narrower than this count as grid lines."""
    valley_threshold: float = 8.0
    """Grey levels of black-hat response above which a pixel is on a thin dark line (a
    0.5 mm printed line at half resolution still gives ~10)."""
    valley_blur: float = 0.0
    """px (Gaussian sigma): the copy is smoothed this much before thin dark lines are
    looked for (sensor noise otherwise lifts the threshold above a faint line's response)."""
    mask_open_px: int = 1
    """px: when too few squares show, the 'may be a square' mask is opened by a box of
    2n+1 and looked at again: a grid line broken for a pixel or two no longer joins the
    squares either side of it."""
    valley_noise_factor: float = 2.0
    """...unless noise is high: the threshold is at least this many times the response
    of the 75th-percentile pixel (flat areas, where only noise responds)."""
    faint_noise_factor: float = 1.5
    """When no look found a grid, each copy is looked at again with the threshold
    this many times that response: hairlines (0.3-0.7 mm) seen small then part the squares
    they run between. Not at first: on a textured table it makes more specks and now and
    then a lattice of the wrong squares."""
    faint_after_seen: float = 0.05
    """... and only after a lattice of at least this share of the board's cells showed
    (such boards show 7-25 %; a table alone none): a photo with no board costs no more."""
    rescaled_look: float | None = 2 ** 0.25
    """When no look found a grid but some saw part of one (``faint_after_seen``), the
    looks are made once more on a copy of the photo scaled by this (or by it over a power
    of two, for a copy at least twice the working size): the halvings see the board at
    other sizes, and hairlines that fell between pixels, merging squares, may part them
    (on 1 600 development tier-2 photos at 1080p, 19 boards not found: 9 found so, all
    in place; at 12 MP, 6 not found, none found so)."""
    wide_looks: tuple[tuple[int, bool], ...] = ((3, False), (3, True), (4, False))
    """When still no look found a grid, the working copy is looked at again with its mask
    opened wider, (``mask_open_px``, faint lines?) in turn: a hairline that blur and noise
    break every few pixels leaves bridges between the squares either side of it, which a
    3-px opening does not cut (on the development photos at 1080p, 20 boards not found:
    6 found so, all in place; (4, True) found none more and one a cell off; at 12 MP, 9
    not found, 1 found so). Even a square seen nowhere else may part so: not gated on
    ``faint_after_seen`` (a photo with no board costs 10-20 ms more)."""
    last_cells_frac: float | None = 0.15
    """When even those found no board, the looks (the rescaled copy's too) are made once
    more taking a lattice of this share of the board's cells (``min_cells_frac``'s 0.25
    otherwise): hairlines that part a few of the squares only, the rest run together.
    Placed by the layout and fitted to the lines as any lattice is (on the development
    photos at 1080p, of the 14 boards the other looks did not find, 9 found so, all in
    place, 2 cells wrong in all; at 12 MP 2 of 8. Lowered so for every look: 0.1 found
    the same, 0.2 two fewer).
    Only once some look saw part of a board (``faint_after_seen``): then a photo with no
    board, whose table or another game's board shows squares, costs 0.2-0.35 s more."""

    outline_look: bool = True
    """The very last resort, for a Mixmath or Calculissimo board whose squares no look
    parts (pale lines between pale squares; a dim, blurred photo) but whose outline shows:
    the grid is looked for inside each large quadrilateral of edges (the board's edge, or
    its grid's), as evenly spaced lines, and taken only where the squares' colours follow
    the layout well (``outline_layout``). Of the development photos whose board no other
    look found, 7 of 8 at 1080p (the one left under a hand) and 6 of 8 at 12 MP are found
    so, in place; none of 240 photos of a Breakthrough or Mastermind board. Runs only when
    no other look found a board: a photo with none costs ~45 ms more (up to ~140 ms with
    many outlines)."""
    outline_canny: tuple[float, float] = (20.0, 60.0)
    """Canny's thresholds for the outline's edges (on the working copy, blurred 5 x 5)."""
    outline_corner_tol: float = 0.02
    """An outline is four corners within this share of its perimeter of the edges' hull."""
    outline_least_ratio: float = 0.3
    """... its shortest side at least this share of its longest (a board at 70 degrees
    from above shows 0.34)."""
    outline_candidates: int = 6
    """The largest outlines tried."""
    outline_px: int = 600
    """px: an outline is squared up to this size to look for its grid."""
    outline_grid_share: float = 0.6
    """The grid spans at least this share of its outline (a board's border is narrower)."""
    outline_contrast: float = 0.5
    """The grid's lines are stronger in edges than halfway between them by at least this
    many times the squared-up outline's median edge (development photos: 0.7-20 on boards
    the other looks did not find)."""
    outline_layout: float = 0.7
    """... and the colours of the squares where the grid puts them follow the layout this
    well (:func:`vision.board._outline_layout_holds`; the lattice's finds need
    ``layout_doubt``)."""
    outline_layout_lead: float | None = 0.25
    """... or at least ``layout_doubt`` well and by this much better than where the grid
    a cell or two off puts them (a crowded real board, 100 tiles at ~25 px cells and 45°:
    0.40 in place, at most 0.10 off it)."""

    # -- cell candidates (connected components of the 'cell' mask)
    min_cell_px: float = 5.0
    """px: the smallest cell side considered on the working copy."""
    max_cell_frac: float = 0.12
    """Fraction of the copy's short side: the largest cell side considered (a board filling
    95 % of the short side with 8 cells)."""
    min_bbox_fill: float = 0.3
    """Area over bounding-box area: a square seen at 45 deg and foreshortened keeps ~0.35."""
    compactness: tuple[float, float] = (0.72, 1.15)
    """Area / (12 sqrt(det covariance)): 1 for any parallelogram (it is affine-invariant),
    1.05 for an ellipse, lower for hollow or ragged blobs (a tile's numeral is a hole)."""
    max_elongation: float = 4.0
    """Ratio of the blob's principal variances: a square foreshortened at 45 deg gives 2."""
    split_elongation: tuple[float, float] = (2.5, 9.0)
    """When squares are taken apart (a second look, with the mask opened), a compact blob
    this elongated (ratio of principal variances: 4 for two squares run together across a
    broken line, 2..8 seen at 45 deg) is also taken as two halves."""

    # -- the lattice of cells
    neighbour_pitch: tuple[float, float] = (0.6, 2.6)
    """Neighbour distance over blob side: raised squares ~1.1, tiles ~1.2, holes ~2.5;
    down to ~0.8 along the foreshortened side at 45 deg elevation."""
    size_ratio: float = 1.6
    """Largest size ratio of two neighbouring blobs (perspective and tiles vs squares)."""
    match_tolerance: float = 0.28
    """cells: a blob belongs to a lattice spot when its centre lies this close."""
    seeds_tried: int = 6
    """How many seed blobs are grown into lattices; the largest lattice wins."""
    min_cells_frac: float = 0.25
    """Fraction of the grid's cells that must be found as blobs: fewer means no board (a
    hand may hide much of it, the tiles may cover much of it)."""
    max_anisotropy: float = 2.2
    """A blob whose shape, seen through the lattice's local map, is longer than square by
    this ratio of second moments is no square (two squares run together give 4)."""
    max_lattice_iterations: int = 24
    """The lattice grows by one ring of squares per iteration."""

    # -- refining on the grid lines
    refine_passes: int = 2
    refine_px_per_cell: int = 20
    """px per cell of the rectified strip the grid lines are searched in."""
    refine_min_cell_px: float = 16.0
    """px: refine on a copy where a cell is at least this big (else a larger copy)."""
    fine_px_per_cell: int = 24
    fine_min_cell_px: float = 30.0
    """The last pass looks closer: a copy with cells >= this, a strip of this px per cell
    (a Mathable gap is a tenth of a cell: over 2 px there)."""
    search_window: tuple[float, ...] = (0.3, 0.15)
    """cells: how far either side of its predicted place each grid line is searched, per
    pass (the first pass corrects the coarse lattice, later ones polish)."""
    wide_pass_doubt_cells: float = 0.08
    """cells: a first (wide) pass that moves the grid further than this may have locked
    onto a crowded board's glyphs and tiles' edges: the last pass alone is tried from the
    lattice too (``board._refined``)."""
    wide_pass_residual_ratio: float = 0.7
    """... and kept when its lines' residual is under this share of the two passes'
    (development collages of real tiles: 0.21-0.67 where the wide pass had gone astray;
    renders 0.79 and above, where it had not: a folded board fits tighter on one half) ..."""
    wide_pass_support_ratio: float = 0.98
    """... on about as many of the line segments that showed a line (at least this share
    of the two passes'; a fit to fewer is close to less of the board)."""
    wide_pass_squares_ratio: float | None = 1.5
    """... or when it puts the lattice's squares (each seen whole: the surest places on
    the board) nearer their cells' centres, the wide pass's RMS offset at least this many
    times its own (None: never)."""
    segment_trim: float = 0.2
    """cells: the ends of each line segment left out (line crossings blur the profile)."""
    min_peak_contrast: float = 6.0
    """Grey levels: a segment whose valley is shallower than this gives no evidence."""
    fit_outer_lines: bool = False
    """Fit the grid's outermost lines too. Off: on a set whose squares are raised with
    gaps (Mathable) the outer edge is a step into the border, not a line, and would pull
    the fit; the inner lines' intersections place the outer ones to within their noise."""
    outlier_cells: float = 0.06
    """cells: a segment further than this (and than 3 MADs) from its fitted line is dropped."""
    marker_misfit_cells: float = 0.06
    """cells: a refinement on the grid lines that moves the grid further than this from
    the markers' corners, beyond the markers' own fit, is not taken."""
    marker_extra_passes: int = 3
    """With three markers, up to this many more fine passes on the grid lines while the
    grid still moves (``settled_cells``)."""
    settled_cells: float = 0.02
    """cells: a refinement that moves the grid's corners less than this has settled."""
    marker_search_slack: float = 2.5
    """cells: a marker the whole picture's search missed is looked for this far round
    where the markers found put it."""
    track_window: tuple[float, ...] = (0.25, 0.12)
    """cells: search windows when refining from the previous frame's location."""
    track_max_move: float = 0.3
    """cells: a board that moved further than this between frames is looked for afresh
    (grid lines repeat every cell: a larger move could land on the neighbouring line)."""
    track_min_similarity: float = 0.6
    """Correlation of the tracked board's small top-down view with the previous frame's
    below which the frame is looked at afresh."""
    marker_trust_cells: tuple[float, ...] = (2.5, 5.0, 9.0)
    """cells: with markers only, the grid lines are refined outwards from the markers in
    these steps (a homography from one marker extrapolates badly)."""

    layout_doubt: float | None = 0.35
    """A board found by its grid whose squares' colours follow its game's layout this
    poorly (the correlation of ``board._layout_scores``: development photos 0.23-0.95,
    with a hand over the board from 0.18) is looked for as the other game with a
    layout too; when that game's layout fits it at least this well, and by
    ``other_layout_margin`` better, it is that game's board, and no board of the game
    asked for (a Mixmath board asked for as Calculissimo was found as one, 60 of 60
    development photos: fits of 0.19 at most against its own layout's 0.43-0.98; the
    other way round 0.21 at most against 0.53-0.97; with a hand, the other layout fits
    0.14 at most). None: not checked."""
    other_layout_margin: float = 0.15
    layout_only_placements: int = 25
    """A lattice of squares along which the grid could lie in this many places or more
    (it spans a block well inside the board) is a board only if the layout fits it at
    least ``layout_doubt``, as is one short of ``min_cells_frac`` (an 8 x 8 Breakthrough
    board's squares, 25-33 % of the cells, leave a 14 x 14 grid 49 places and a 15 x 15
    one 64, their layout fits 0.08-0.20; dev boards with a hand whose layout fitted below
    0.35 left 1-18)."""
    layout_margin: float = 0.1
    """Correlation (0..1) by which the best placement of the grid along a partly seen
    lattice must beat the next to count as certain."""
    layout_shift_margin: float = 0.5
    """Correlation by which a grid a cell off must match the layout better than the grid
    placed on a wholly seen lattice to be taken instead (1.3 for a 12 MP board whose
    lattice ran a row into its border; never reached on 1 200 dev photos at 1080p)."""
    layout_glance: float = 0.2
    """... looked for only when the grid as placed matches the layout less than this at a
    glance (4 points a cell; grids in place on 240 dev photos: >= 0.30, that 12 MP one
    a cell off: < 0)."""

    # -- orientation and quality
    orientation_margin: float = 0.7
    """The profile's picture of the border tells which side is up when its correlation
    under the best quarter turn beats the runner-up by this much (the real Mathable
    photos: 0.76-0.88, re-shot 0.03-0.95, the right turn on all; rendered look-alikes with
    other border art: of 163 dev renders matched to the profile, the border's turn and the
    centre numbers' differed on 80, by up to 0.42, and by 0.65 on dev 947919709; alone at
    0.34 it once turned a board whose numbers a glare hid). Below it the border's turn is
    a guess the tiles settle."""
    orientation_dissent: float = 0.3
    """... and it puts the centre numbers' turn in doubt (the tiles settle it) when it leads
    another turn by this much: a hand over the centre of a real Mathable photo re-shot
    made its numbers lead a wrong turn, the border the right one by 0.47."""
    numeral_margin: float = 0.5
    """The printed centre numbers tell it when the best turn's mean log-probability of
    showing them upright beats the next by this (on 120 renders the right turn won by
    >= 0.43, 1.6 at the 5th percentile; the 180 deg turn is the usual runner-up)."""
    numeral_legible: float = -3.0
    """... and only when they are legible: under the best turn, that mean is at least
    this (on 590 development tier-2 photos whose best turn was the right one: -2.4 or
    more; a dim photo's numbers, dark on dark green squares: -4.4, the wrong turn best
    by 0.85, and the board read upside down)."""
    numeral_px_per_cell: int = 32
    """px per cell of the top-down view the centre numbers are read in."""
    numeral_inset: float = 0.125
    """cells: the edge of a centre square left out (its neighbours' edges, gaps)."""
    numeral_temperature: float = 0.05
    """Correlation units per unit of log-probability when a numeral's match with its
    own number is weighed against the others and the turned ones."""
    good_residual_cells: float = 0.03
    """cells: an RMS line-fit residual this small gives quality ~1; 3x it gives ~0.5."""
    sure_quality: float = 0.6
    sure_support: float = 0.5
    """A grid this good (quality, share of line segments seen) ends the search; a board
    found from a single marker needs at least this share of its lines seen."""
    agree_cells: float = 0.1
    """cells: two looks (copies, masks) whose grids' corners agree this closely end the
    search even when neither is sure (a residual raised by tall tiles stays raised)."""
    min_quality: float = 0.15
    """Below this a grid-like find is no board (BoardNotFound), not a guess."""
    extrapolated_quality: float = 0.4
    """A board found from one or two markers whose grid lines fit below this is looked
    for by its grid too (the better find kept): on 600 development photos such finds
    fitted at 0.60 or better, but one, whose two markers of one side had put the grid a
    column off, fitted at 0.20 (its grid, looked for with the mask opened wider: 0.64)."""

    # -- markers (print-and-play)
    marker_min_contrast: float = 25.0
    """Grey levels between a marker's quiet zone and its black frame below which a corner
    of the margin is not read as a marker."""
    marker_bits_match: float = 0.6
    """Mean agreement (-1..1) of a corner's 16 bits with a marker's, at least, to read it
    as that marker (a blurred 2 px module still gives ~0.8; another marker ~0)."""
    marker_bits_margin: float = 0.25
    """...and this much better than any other marker or turn."""
    min_unchecked_markers: int = 3
    """With no grid line to check them, fewer markers than this are no board: the
    homography from two markers extrapolates their corners' pixel errors across the board
    (two opposite ones on a blurred 12 MP render: 1.4 cells off)."""
    marker_min_perimeter: float = 0.02
    """Marker perimeter over the image's long side: smaller candidates are ignored."""


@dataclass(frozen=True)
class VisionConfig:
    """All of vision's tunables; each stage is given its own part.

    Other stages add their dataclass here (``tiles: TilesConfig = ...``)."""

    board: BoardConfig = field(default_factory=BoardConfig)

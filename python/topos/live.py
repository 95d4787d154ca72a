"""A training curve that redraws itself in place in a notebook cell."""


class LiveCurve:
    """Curves that grow as values are appended: in a Jupyter notebook the
    cell's picture is updated in place (every `every` appends); elsewhere
    `str(curve)` draws it as text.

        curve = topos.show.LiveCurve("digits MLP", y_label="loss")
        for step in range(steps):
            ...
            curve.append(loss)
    """

    def __init__(self, title="", x_label="step", y_label="", every=1):
        self.title = title
        self.x_label = x_label
        self.y_label = y_label
        self.every = max(1, int(every))
        self.series = {}
        self._appended = 0
        self._handle = None

    def append(self, value, label="loss"):
        self.series.setdefault(label, []).append(float(value))
        self._appended += 1
        if self._appended % self.every == 0:
            self._redraw()

    def plot(self):
        from . import _topos

        plot = _topos.show.Plot()
        plot.title(self.title).x_label(self.x_label).y_label(self.y_label)
        for label, values in self.series.items():
            plot.line(label, values)
        return plot

    def _redraw(self):
        display = _notebook_display()
        if display is None:
            return
        svg = _svg(self.plot().svg())
        if self._handle is None:
            self._handle = display(svg, display_id=True)
        else:
            self._handle.update(svg)

    def _repr_svg_(self):
        return self.plot()._repr_svg_()

    def __str__(self):
        return self.plot().text()


def _notebook_display():
    """IPython's display, where a kernel runs this code; else None."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        return None
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return None
    return display


def _svg(markup):
    from IPython.display import SVG

    return SVG(markup)

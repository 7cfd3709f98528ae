"""The optional compiled scanner of the LP reader's fast path (everything else: pyproject.toml).

Built with the package where a C compiler is at hand; where it is not, the build goes on
without it and the pure-Python fast path reads the same files to the same models.
"""

from Cython.Build import cythonize
from setuptools import Extension, setup

setup(ext_modules=cythonize(
    [Extension("ortrex.ir.formats._lpscan", ["ortrex/ir/formats/_lpscan.pyx"], optional=True)],
    compiler_directives={"language_level": "3"}, quiet=True))

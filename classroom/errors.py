"""One exception per thing that can go wrong in class mode, each with the sentence a page shows."""


class ClassError(Exception):
    """Anything class mode refuses; str(error) is the message for the screen."""


class StoreUnavailable(ClassError):
    """The database cannot be reached: the class pages say so, the rest of the app keeps working."""


NO_SUCH_CODE = "No class has this code. Check it on the teacher's screen."


class UnknownClass(ClassError):
    """No class has this join code (or it was ended and deleted)."""


class ClassExpired(ClassError):
    """The class is past its time: it can be read and downloaded, not joined or voted in."""


class WrongSecret(ClassError):
    """The teacher's link does not hold this class's secret."""


class UnknownSeat(ClassError):
    """A student's seat link names no seat of this class."""


class BadNickname(ClassError):
    """A nickname too long or made of nothing printable."""


class NicknameTaken(BadNickname):
    """Someone in the class has this nickname already, or it is one the store gives ("Student 17")."""


class VotingClosed(ClassError):
    """A vote arrived when the teacher had not opened voting on this step and round."""


class QuizClosed(ClassError):
    """Quiz answers arrived when the teacher had not opened that form of the quiz."""


class BadOption(ClassError):
    """A vote for something that is not one of the question's options."""


class ClassFull(ClassError):
    """The class has as many seats as one class may have."""


class NetworkFull(ClassError):
    """The class has seated as many browsers from this address as one address may have in a class."""


class BadStep(ClassError):
    """A step the lesson does not have."""


class TooManyTries(ClassError):
    """This address typed too many wrong join codes and must wait."""


class TooManyClasses(ClassError):
    """This browser, or its address, started as many classes as it may in an hour."""

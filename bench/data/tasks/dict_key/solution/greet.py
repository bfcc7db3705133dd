def greet(user):
    return "Hello, " + user["first_name"] + "!"
